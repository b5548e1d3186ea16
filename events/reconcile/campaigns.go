package reconcile

import (
	"encoding/json"
	"fmt"
	"os"
)

// ReadCampaignIDs returns the ids of a campaigns file, {"campaigns":[{"id":
// …}, …]}, without checking the rest of it (dspd does, at load).
func ReadCampaignIDs(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reconcile: campaigns: %w", err)
	}
	var file struct {
		Campaigns *[]struct {
			ID string `json:"id"`
		} `json:"campaigns"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("reconcile: campaigns %s: %w", path, err)
	}
	if file.Campaigns == nil {
		return nil, fmt.Errorf("reconcile: campaigns %s: no \"campaigns\" list", path)
	}
	ids := make([]string, 0, len(*file.Campaigns))
	for i, c := range *file.Campaigns {
		if c.ID == "" {
			return nil, fmt.Errorf("reconcile: campaigns %s: campaign #%d has no id", path, i)
		}
		ids = append(ids, c.ID)
	}
	return ids, nil
}
