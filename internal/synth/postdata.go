package synth

// DefaultSeed is the seed of the committed testdata: gendata's default, and
// the seed PostData is checked against (Campaigns(1000, DefaultSeed)).
const DefaultSeed uint64 = 20261102

// PostData returns one fixed, realistic bid request body, the kind `ab -p`
// posts over and over: an Android app's 320x50 banner in Shanghai, with a
// long WebView user agent and the usual ignored device keys, 630–670 bytes
// encoded. It wins against Campaigns(1000, DefaultSeed): it matches the broad
// campaigns (CN, secure 320x50 creatives, no frequency cap, large budget),
// bid_cpm ≥ its 0.5 floor.
func PostData() string {
	return encodeForm([]field{
		{key: "id", value: "7c0f3e9a5b2d4c18a6e1f0d9b8c7a654"},
		{key: "imp_id", value: "1"},
		{key: "tmax", value: "120"},
		{key: "ts", value: "1793780833412"}, // 2026-11-04T08:27:13.412Z
		{key: "test", value: "0"},
		{key: "secure", value: "1"},
		{key: "w", value: "320"},
		{key: "h", value: "50"},
		{key: "pos", value: "3"},
		{key: "floor", value: "0.5"},
		{key: "cur", value: "USD"},
		{key: "bundle", value: "com.example.news"},
		{key: "app_name", value: "Example News"},
		{key: "cat", value: "IAB12,IAB12-1"},
		{key: "ua", value: "Mozilla/5.0 (Linux; Android 14; 23049RAD8C Build/UKQ1.230804.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.230 Mobile Safari/537.36"},
		{key: "ip", value: "116.228.111.18"},
		{key: "os", value: "android"},
		{key: "osv", value: "14"},
		{key: "make", value: "Xiaomi"},
		{key: "model", value: "23049RAD8C"},
		{key: "devtype", value: "4"},
		{key: "ifa", value: "5d8e2f1c-3b4a-4e6f-9c7d-0a1b2c3d4e5f"},
		{key: "lmt", value: "0"},
		{key: "connectiontype", value: "2"},
		{key: "carrier", value: "46000"},
		{key: "lang", value: "zh"},
		{key: "country", value: "CN"},
		{key: "region", value: "CN-31"},
		{key: "city", value: "Shanghai"},
		{key: "lat", value: "31.2304"},
		{key: "lon", value: "121.4737"},
		{key: "gdpr", value: "0"},
		{key: "uid", value: "u_k3v9q2m7x1c8z5w4r6t0y2p8n1b7"},
	})
}
