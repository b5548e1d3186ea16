package nativead_test

import (
	"fmt"

	"github.com/recbid/dspd/nativead"
)

// An impression's native request as OpenRTB 2.x sends it (imp.native.request
// a JSON string), a creative prepared once per catalogue load, and the
// answer written as the inside of the bid's "adm" string.
func Example() {
	raw := []byte(`"{\"ver\":\"1.2\",\"eventtrackers\":[{\"event\":1,\"methods\":[1]}],` +
		`\"assets\":[{\"id\":1,\"required\":1,\"title\":{\"len\":25}},` +
		`{\"id\":2,\"required\":1,\"img\":{\"type\":3,\"wmin\":600,\"hmin\":314}},` +
		`{\"id\":3,\"data\":{\"type\":3}}]}"`)
	pc := nativead.Prepare(&nativead.Creative{
		Title:    `The "best" coffee`,
		ImageURL: "https://cdn.example/1200x627.jpg", ImageW: 1200, ImageH: 627,
		ClickURL: "https://shop.example/",
	})

	var req nativead.Request // pooled in a server
	if err := nativead.ParseRequest(raw, &req); err != nil {
		fmt.Println(err)
		return
	}
	plan, ok := pc.Fit(&req)
	if !ok {
		miss, id := plan.Miss()
		fmt.Println("no fit:", miss, id)
		return
	}
	imp := nativead.AppendEscaped(nil, "https://dsp.example/dsp/imp?b=42")
	adm := pc.AppendResponse(nil, &plan, nil, imp)
	fmt.Printf(`"adm":"%s"`+"\n", adm)
	// Output:
	// "adm":"{\"ver\":\"1.2\",\"assets\":[{\"id\":1,\"title\":{\"text\":\"The \\\"best\\\" coffee\"}},{\"id\":2,\"img\":{\"url\":\"https://cdn.example/1200x627.jpg\",\"w\":1200,\"h\":627}}],\"link\":{\"url\":\"https://shop.example/\"},\"eventtrackers\":[{\"event\":1,\"method\":1,\"url\":\"https://dsp.example/dsp/imp?b=42\"}]}"
}
