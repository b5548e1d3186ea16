package comparison

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Outcome is what a bid request got, in the terms both servers must agree
// on: status, no-bid reason, and for a bid the campaign, creative, price
// and the length of the answer (bid ids differ, their length does not).
type Outcome struct {
	Status   int
	Reason   string
	CID      string
	CrID     string
	Price    string
	Length   int
	ErrorKey string // error and field of a 4xx answer
}

// OutcomeOf reads resp (and closes its body).
func OutcomeOf(resp *http.Response) (Outcome, error) {
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Outcome{}, err
	}
	o := Outcome{Status: resp.StatusCode, Reason: resp.Header.Get("X-Nobid-Reason"), Length: len(body)}
	switch {
	case resp.StatusCode == http.StatusOK:
		var bid struct {
			SeatBid []struct {
				Bid []struct {
					CID   string      `json:"cid"`
					CrID  string      `json:"crid"`
					Price json.Number `json:"price"`
				} `json:"bid"`
			} `json:"seatbid"`
		}
		if err := json.Unmarshal(body, &bid); err != nil || len(bid.SeatBid) != 1 || len(bid.SeatBid[0].Bid) != 1 {
			return o, fmt.Errorf("not a bid answer: %.200q", body)
		}
		b := bid.SeatBid[0].Bid[0]
		o.CID, o.CrID, o.Price = b.CID, b.CrID, b.Price.String()
	case resp.StatusCode >= 400:
		var e struct{ Error, Field string }
		_ = json.Unmarshal(body, &e)
		o.ErrorKey = e.Error + "/" + e.Field
	}
	return o, nil
}

// post sends one form body and returns its outcome.
func post(ctx context.Context, client *http.Client, url string, body []byte) (Outcome, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Outcome{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := client.Do(req)
	if err != nil {
		return Outcome{}, err
	}
	return OutcomeOf(resp)
}

// checkParity sends every body to both servers and fails at the first
// request on which they disagree.
func checkParity(ctx context.Context, a, b *server, bodies [][]byte) error {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	for i, body := range bodies {
		oa, err := post(ctx, client, a.url(), body)
		if err != nil {
			return fmt.Errorf("request %d to %s: %w", i+1, a.name, err)
		}
		ob, err := post(ctx, client, b.url(), body)
		if err != nil {
			return fmt.Errorf("request %d to %s: %w", i+1, b.name, err)
		}
		if oa != ob {
			return fmt.Errorf("the servers disagree on request %d of the corpus:\n  %s: %+v\n  %s: %+v\n  body: %s",
				i+1, a.name, oa, b.name, ob, body)
		}
	}
	return nil
}
