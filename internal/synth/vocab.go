package synth

import (
	"fmt"
	"strings"
)

// The word lists the generators draw from. Everything here is fictional or
// generic; ".example" style names are used for inventory so that no real site
// is implied.

// advertiser is one brand that runs campaigns.
type advertiser struct {
	name string   // display name, may need HTML/JSON escaping
	slug string   // lowercase domain label
	tlds []string // first is the main site; the rest are alternates
	cat  string   // main IAB category
}

var advertisers = []advertiser{
	{"Acme Shoes", "acmeshoes", []string{"com", "co.uk", "de"}, "IAB18"},
	{"Northwind Traders", "northwindtraders", []string{"com", "net"}, "IAB22"},
	{"Contoso Bank", "contosobank", []string{"com", "co.uk"}, "IAB13"},
	{"Globex Mobile", "globexmobile", []string{"com", "cn", "jp"}, "IAB19"},
	{"Initech Software", "initech", []string{"io", "com"}, "IAB19"},
	{"Smith & Sons Hardware", "smithandsons", []string{"co.uk", "com"}, "IAB10"},
	{"O'Neil Travel", "oneiltravel", []string{"com", "ie"}, "IAB20"},
	{"Café Müller", "cafemueller", []string{"de", "com"}, "IAB8"},
	{"Crème Brûlée Pâtisserie", "cremebrulee", []string{"fr", "com"}, "IAB8"},
	{"华夏旅游 Huaxia Travel", "huaxiatravel", []string{"cn", "com"}, "IAB20"},
	{`The "Green" Grocer`, "thegreengrocer", []string{"com", "co.uk"}, "IAB8"},
	{"Bits <&> Bytes", "bitsandbytes", []string{"net", "com"}, "IAB19"},
	{"Fabrikam Fitness", "fabrikamfitness", []string{"com", "com.au"}, "IAB7"},
	{"Wide World Importers", "wideworldimporters", []string{"com", "net"}, "IAB22"},
	{"Tailspin Toys", "tailspintoys", []string{"com", "co.uk"}, "IAB9"},
	{"Adventure Works Outdoor", "adventure-works", []string{"com", "ca"}, "IAB17"},
	{"Blue Yonder Airlines", "blueyonderairlines", []string{"com", "de", "fr"}, "IAB20"},
	{"Coho Winery", "cohowinery", []string{"com", "it"}, "IAB8"},
	{"Litware Games", "litwaregames", []string{"com", "jp", "kr"}, "IAB9"},
	{"Proseware Insurance", "proseware", []string{"com", "net"}, "IAB13"},
	{"Lucerne Publishing", "lucernepublishing", []string{"com", "ch"}, "IAB1"},
	{"Margie's Travel", "margiestravel", []string{"com", "com.au"}, "IAB20"},
	{"Alpine Ski House", "alpineskihouse", []string{"com", "ch", "fr"}, "IAB17"},
	{"Fourth Coffee", "fourthcoffee", []string{"com", "co.uk"}, "IAB8"},
	{"Trey Research", "treyresearch", []string{"net", "com"}, "IAB15"},
	{"Woodgrove Bank", "woodgrovebank", []string{"com", "ca"}, "IAB13"},
	{"Graphic Design Institute", "graphicdesigninstitute", []string{"com", "edu.au"}, "IAB5"},
	{"Humongous Insurance", "humongousinsurance", []string{"com", "net"}, "IAB13"},
	{"VanArsdel Ltd.", "vanarsdel", []string{"com", "co.uk"}, "IAB10"},
	{"Relecloud", "relecloud", []string{"com", "io"}, "IAB19"},
	{"Munson's Pickles and Preserves", "munsonspickles", []string{"com", "ca"}, "IAB8"},
	{"Wingtip Toys", "wingtiptoys", []string{"com", "es"}, "IAB9"},
	{"Southridge Video", "southridgevideo", []string{"com", "tv"}, "IAB1"},
	{"City Power & Light", "citypowerlight", []string{"com", "net"}, "IAB3"},
	{"Consolidated Messenger", "consolidatedmessenger", []string{"com", "co.uk"}, "IAB3"},
	{"A. Datum Corp", "adatum", []string{"com", "net"}, "IAB19"},
	{"Lamna Healthcare", "lamnahealthcare", []string{"com", "in"}, "IAB7"},
	{"Nod Publishers", "nodpublishers", []string{"com", "co.uk"}, "IAB1"},
	{"Northwind Electric Cars", "northwindev", []string{"com", "de", "cn"}, "IAB2"},
	{"Best For You Organics", "bestforyouorganics", []string{"com", "ca"}, "IAB8"},
	{"Sunrise Hotels", "sunrisehotels", []string{"com", "com.mx", "es"}, "IAB20"},
	{"Redwood Realty", "redwoodrealty", []string{"com", "net"}, "IAB21"},
	{"BrightPath Academy", "brightpathacademy", []string{"com", "in"}, "IAB5"},
	{"PetPal Supplies", "petpalsupplies", []string{"com", "co.uk", "de"}, "IAB16"},
	{"Urban Threads", "urbanthreads", []string{"com", "fr", "it"}, "IAB18"},
	{"Velvet Beauty", "velvetbeauty", []string{"com", "kr", "jp"}, "IAB18"},
	{"Mountain Peak Gear", "mountainpeakgear", []string{"com", "ca", "com.au"}, "IAB17"},
	{"QuickCart Grocery", "quickcart", []string{"com", "in", "co.id"}, "IAB22"},
	{"Harbor Seafood", "harborseafood", []string{"com", "jp"}, "IAB8"},
	{"Zenith Auto Parts", "zenithautoparts", []string{"com", "com.mx", "com.br"}, "IAB2"},
	{"Nimbus Weather Pro", "nimbusweather", []string{"app", "com"}, "IAB15"},
	{"CareerLeap Jobs", "careerleap", []string{"com", "in", "co.uk"}, "IAB4"},
	{"LittleSteps Baby", "littlesteps", []string{"com", "de", "cn"}, "IAB6"},
	{"GreenLeaf Garden Center", "greenleafgarden", []string{"com", "co.uk"}, "IAB10"},
	{"FinWise Credit", "finwisecredit", []string{"com", "com.br", "in"}, "IAB13"},
	{"PixelForge Studios", "pixelforge", []string{"games", "com", "kr"}, "IAB9"},
	{"Galaxy Cinemas", "galaxycinemas", []string{"com", "in", "com.mx"}, "IAB1"},
	{"Metro Law Group", "metrolawgroup", []string{"com", "net"}, "IAB11"},
	{"Golden Dragon Express", "goldendragonexpress", []string{"cn", "com", "com.hk"}, "IAB20"},
	{"Lotus Tea House", "lotusteahouse", []string{"cn", "com"}, "IAB8"},
	{"Panda Mobile", "pandamobile", []string{"cn", "com"}, "IAB19"},
	{"Koi Games", "koigames", []string{"jp", "com", "cn"}, "IAB9"},
	{"Maple Leaf Insurance", "mapleleafinsurance", []string{"ca", "com"}, "IAB13"},
	{"Kangaroo Courier", "kangaroocourier", []string{"com.au", "com"}, "IAB3"},
	{"Samba Shoes", "sambashoes", []string{"com.br", "com"}, "IAB18"},
	{"Taco Fiesta", "tacofiesta", []string{"com.mx", "com"}, "IAB8"},
	{"Bollywood Beats", "bollywoodbeats", []string{"in", "com"}, "IAB1"},
	{"Spice Route Foods", "spiceroutefoods", []string{"in", "com", "co.uk"}, "IAB8"},
	{"Seoul Beauty Lab", "seoulbeautylab", []string{"kr", "com", "cn"}, "IAB18"},
	{"Sakura Sushi Bar", "sakurasushi", []string{"jp", "com"}, "IAB8"},
	{"Bavaria Beer Garden", "bavariabeergarden", []string{"de", "com"}, "IAB8"},
	{"Rhine River Cruises", "rhinerivercruises", []string{"de", "com", "fr"}, "IAB20"},
	{"Tuscany Olive Oil Co.", "tuscanyoliveoil", []string{"it", "com"}, "IAB8"},
	{"Flamenco Fashion", "flamencofashion", []string{"es", "com"}, "IAB18"},
	{"Jakarta Java Coffee", "jakartajava", []string{"co.id", "com"}, "IAB8"},
	{"Aztec Adventures", "aztecadventures", []string{"com.mx", "com"}, "IAB20"},
	{"Outback Camping Co.", "outbackcamping", []string{"com.au", "com"}, "IAB17"},
	{"StreamBox TV", "streambox", []string{"tv", "com"}, "IAB1"},
	{"DriveNow Rentals", "drivenow", []string{"com", "de", "fr"}, "IAB2"},
	{"Orbit Telecom", "orbittelecom", []string{"com", "net", "co.id"}, "IAB19"},
}

// iabSubcats holds, for IAB1 … IAB26 (index 0 is IAB1), how many subcategories
// the IAB content taxonomy 1.0 defines (IAB24 "Uncategorized" has none).
var iabSubcats = [26]int{7, 23, 12, 11, 15, 9, 45, 18, 31, 9, 5, 3, 12, 8, 10, 7, 44, 6, 36, 27, 3, 4, 10, 0, 7, 4}

// contentTops are the top-level categories that ordinary pages and ads carry:
// IAB24 (uncategorized), IAB25 (non-standard) and IAB26 (illegal) are left out.
var contentTops = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}

// blockedCats are the categories exchanges and publishers most often put in
// bcat: non-standard and illegal content, gambling, alcohol, dating, …
var blockedCats = []string{"IAB25", "IAB26", "IAB7-39", "IAB8-5", "IAB8-18", "IAB9-9", "IAB14-1", "IAB11-4", "IAB23", "IAB13-7", "IAB7-28", "IAB3-7"}

// size is an ad slot size in pixels.
type size struct{ w, h int }

// creativeSizes are the standard IAB sizes, weighted by how common they are.
var creativeSizes = []size{
	{300, 250}, {320, 50}, {728, 90}, {160, 600}, {300, 600}, {320, 480},
	{468, 60}, {970, 250}, {336, 280}, {480, 320}, {320, 100},
}
var creativeSizeWeights = []int{30, 22, 12, 5, 6, 7, 2, 3, 4, 3, 6}

// uncommonSizes are slot sizes exchanges send that few campaigns have creatives for.
var uncommonSizes = []size{
	{250, 250}, {120, 600}, {200, 200}, {180, 150}, {234, 60}, {120, 240},
	{300, 50}, {300, 1050}, {970, 90}, {250, 360}, {580, 400}, {300, 100},
	{125, 125}, {240, 400}, {768, 1024}, {1024, 768}, {360, 640}, {414, 896},
}

// country is a country with the ISO 3166-2 regions and the first IPv4 octets
// used for it.
type country struct {
	code    string
	weight  int
	regions []string
	ipFirst []int
	lang    string
}

var countries = []country{
	{"CN", 22, []string{"CN-11", "CN-31", "CN-44", "CN-33", "CN-51", "CN-32"}, []int{36, 58, 101, 106, 112, 116, 117, 119, 120, 183, 223}, "zh"},
	{"US", 20, []string{"US-CA", "US-NY", "US-TX", "US-FL", "US-WA", "US-IL"}, []int{3, 23, 24, 44, 63, 64, 66, 68, 73, 98, 104, 107}, "en"},
	{"GB", 7, []string{"GB-ENG", "GB-SCT", "GB-WLS"}, []int{2, 5, 31, 51, 81, 86, 90}, "en"},
	{"DE", 6, []string{"DE-BE", "DE-BY", "DE-HH", "DE-NW", "DE-HE"}, []int{2, 46, 77, 78, 79, 84, 87, 91, 93}, "de"},
	{"JP", 7, []string{"JP-13", "JP-27", "JP-23", "JP-14"}, []int{1, 27, 49, 60, 106, 111, 126, 133}, "ja"},
	{"FR", 4, []string{"FR-IDF", "FR-ARA", "FR-PAC"}, []int{2, 5, 37, 78, 80, 82, 90, 92}, "fr"},
	{"IN", 8, []string{"IN-MH", "IN-DL", "IN-KA", "IN-TN"}, []int{14, 27, 49, 103, 106, 117, 122, 157}, "hi"},
	{"BR", 5, []string{"BR-SP", "BR-RJ", "BR-MG"}, []int{177, 179, 186, 187, 189, 191, 200, 201}, "pt"},
	{"CA", 4, []string{"CA-ON", "CA-QC", "CA-BC"}, []int{24, 64, 70, 99, 142, 173, 184}, "en"},
	{"AU", 3, []string{"AU-NSW", "AU-VIC", "AU-QLD"}, []int{1, 27, 49, 58, 101, 110, 120, 203}, "en"},
	{"KR", 4, []string{"KR-11", "KR-26", "KR-41"}, []int{1, 39, 58, 61, 106, 112, 121, 175, 211, 222}, "ko"},
	{"ES", 3, []string{"ES-MD", "ES-CT", "ES-AN"}, []int{2, 5, 31, 37, 79, 83, 88, 95}, "es"},
	{"IT", 3, []string{"IT-25", "IT-62", "IT-72"}, []int{2, 5, 37, 79, 87, 93, 151}, "it"},
	{"MX", 3, []string{"MX-CMX", "MX-JAL", "MX-NLE"}, []int{187, 189, 200, 201}, "es"},
	{"ID", 4, []string{"ID-JK", "ID-JB", "ID-JI"}, []int{36, 39, 103, 110, 114, 125, 180, 202}, "id"},
}

// countryWeights lists the weights of countries, in order, for rng.weighted.
var countryWeights = func() []int {
	ws := make([]int, len(countries))
	for i, c := range countries {
		ws[i] = c.weight
	}
	return ws
}()

// city is a city with its region and coordinates in 1e-4 degrees.
type city struct {
	name     string
	region   string
	lat, lon int
}

var cities = []city{
	{"Shanghai", "CN-31", 312304, 1214737},
	{"Beijing", "CN-11", 399042, 1164074},
	{"Guangzhou", "CN-44", 231291, 1132644},
	{"Shenzhen", "CN-44", 225431, 1140579},
	{"Hangzhou", "CN-33", 302741, 1201551},
	{"Chengdu", "CN-51", 305728, 1040668},
	{"Nanjing", "CN-32", 320603, 1187969},
	{"New York", "US-NY", 407128, -740060},
	{"San Francisco", "US-CA", 377749, -1224194},
	{"Los Angeles", "US-CA", 340522, -1182437},
	{"Houston", "US-TX", 297604, -953698},
	{"Miami", "US-FL", 257617, -801918},
	{"Seattle", "US-WA", 476062, -1223321},
	{"Chicago", "US-IL", 418781, -876298},
	{"London", "GB-ENG", 515074, -1278},
	{"Manchester", "GB-ENG", 534808, -22426},
	{"Edinburgh", "GB-SCT", 559533, -31883},
	{"Cardiff", "GB-WLS", 514816, -31791},
	{"Berlin", "DE-BE", 525200, 134050},
	{"Munich", "DE-BY", 481351, 115820},
	{"Hamburg", "DE-HH", 535511, 99937},
	{"Cologne", "DE-NW", 509375, 69603},
	{"Frankfurt am Main", "DE-HE", 501109, 86821},
	{"Tokyo", "JP-13", 356762, 1396503},
	{"Osaka", "JP-27", 346937, 1355023},
	{"Nagoya", "JP-23", 351815, 1369066},
	{"Yokohama", "JP-14", 354437, 1396380},
	{"Paris", "FR-IDF", 488566, 23522},
	{"Lyon", "FR-ARA", 457640, 48357},
	{"Marseille", "FR-PAC", 432965, 53698},
	{"Mumbai", "IN-MH", 190760, 728777},
	{"New Delhi", "IN-DL", 286139, 772090},
	{"Bengaluru", "IN-KA", 129716, 775946},
	{"Chennai", "IN-TN", 130827, 802707},
	{"São Paulo", "BR-SP", -235505, -466333},
	{"Rio de Janeiro", "BR-RJ", -229068, -431729},
	{"Belo Horizonte", "BR-MG", -199167, -439345},
	{"Toronto", "CA-ON", 436532, -793832},
	{"Montréal", "CA-QC", 455019, -735674},
	{"Vancouver", "CA-BC", 492827, -1231207},
	{"Sydney", "AU-NSW", -338688, 1512093},
	{"Melbourne", "AU-VIC", -378136, 1449631},
	{"Brisbane", "AU-QLD", -274698, 1530251},
	{"Seoul", "KR-11", 375665, 1269780},
	{"Busan", "KR-26", 351796, 1290756},
	{"Suwon", "KR-41", 372636, 1270286},
	{"Madrid", "ES-MD", 404168, -37038},
	{"Barcelona", "ES-CT", 413874, 21686},
	{"Seville", "ES-AN", 373891, -59845},
	{"Milan", "IT-25", 454642, 91900},
	{"Rome", "IT-62", 419028, 124964},
	{"Naples", "IT-72", 408518, 142681},
	{"Mexico City", "MX-CMX", 194326, -991332},
	{"Guadalajara", "MX-JAL", 206597, -1033496},
	{"Monterrey", "MX-NLE", 256866, -1003161},
	{"Jakarta", "ID-JK", -62088, 1068456},
	{"Bandung", "ID-JB", -69175, 1076191},
	{"Surabaya", "ID-JI", -72575, 1127521},
}

// regionCountry returns the country code of an ISO 3166-2 region code.
func regionCountry(region string) string {
	if len(region) < 2 {
		return ""
	}
	return region[:2]
}

// citiesIn returns the cities of the given region, or of the country when
// region is empty.
func citiesIn(countryCode, region string) []city {
	var out []city
	for _, c := range cities {
		if (region != "" && c.region == region) || (region == "" && regionCountry(c.region) == countryCode) {
			out = append(out, c)
		}
	}
	return out
}

// cityByName returns the city with the given name.
func cityByName(name string) (city, bool) {
	for _, c := range cities {
		if c.name == name {
			return c, true
		}
	}
	return city{}, false
}

// Operating systems, as the contract spells them.
var (
	mobileOSes  = []string{"android", "ios"}
	desktopOSes = []string{"windows", "macos", "linux"}
	allOSes     = []string{"android", "ios", "windows", "macos", "linux"}
)

// osTargets are the os lists campaigns target, weighted by osTargetWeights.
var osTargets = [][]string{
	{"android", "ios"}, {"android"}, {"ios"}, {"windows", "macos"},
	{"windows", "macos", "linux"}, {"windows"}, {"android", "ios", "windows", "macos"}, {"macos", "ios"},
}
var osTargetWeights = []int{30, 22, 15, 8, 6, 5, 8, 6}

// devtypeTargets are the devtype lists campaigns target (OpenRTB device types).
var devtypeTargets = [][]int{
	{1, 4, 5}, {4}, {4, 5}, {1, 4}, {2}, {2, 4, 5}, {3, 7}, {5}, {1, 2, 4, 5}, {3, 6, 7},
}
var devtypeTargetWeights = []int{30, 15, 12, 8, 12, 8, 3, 4, 6, 2}

// dayparts are the hour lists campaigns target: contiguous UTC ranges, some
// wrapping around midnight, written as [from, to] pairs, both inclusive.
var dayparts = [][][2]int{
	{{8, 22}}, {{0, 6}}, {{6, 10}}, {{9, 17}}, {{17, 23}}, {{12, 14}},
	{{7, 9}, {17, 21}}, {{20, 23}, {0, 2}}, {{10, 22}}, {{1, 13}}, {{18, 23}},
}

// expandHours turns daypart ranges into a sorted list of hours.
func expandHours(ranges [][2]int) []int {
	var in [24]bool
	for _, r := range ranges {
		for h := r[0]; h <= r[1]; h++ {
			in[h] = true
		}
	}
	var out []int
	for h, ok := range in {
		if ok {
			out = append(out, h)
		}
	}
	return out
}

// inventoryTopic is a kind of site or app, with its IAB category.
type inventoryTopic struct {
	name string
	cat  string
}

var inventoryTopics = []inventoryTopic{
	{"news", "IAB12"}, {"sports", "IAB17"}, {"weather", "IAB15-10"}, {"finance", "IAB13"},
	{"tech", "IAB19"}, {"recipes", "IAB8"}, {"travel", "IAB20"}, {"autos", "IAB2"},
	{"fashion", "IAB18"}, {"health", "IAB7"}, {"games", "IAB9-30"}, {"movies", "IAB1-5"},
	{"music", "IAB1-6"}, {"parenting", "IAB6"}, {"pets", "IAB16"}, {"homes", "IAB10"},
	{"realestate", "IAB21"}, {"jobs", "IAB4"}, {"learning", "IAB5"}, {"science", "IAB15"},
	{"deals", "IAB22"}, {"dating", "IAB14-1"}, {"faith", "IAB23"}, {"fitness", "IAB7-18"},
	{"photo", "IAB9-23"}, {"books", "IAB1-1"}, {"tv", "IAB1-7"}, {"celebs", "IAB1-2"},
	{"puzzles", "IAB9-30"}, {"cars", "IAB2"},
}

// inventoryItem is one site domain or app bundle, its IAB category and, for
// apps, the app's name.
type inventoryItem struct {
	name  string
	cat   string
	title string
}

// inventoryPattern makes a site domain or app bundle, and an app name, from a
// topic.
type inventoryPattern struct{ name, title string }

var (
	sitePatterns = []inventoryPattern{
		{"www.%sdaily.example.net", ""}, {"m.%s-today.example.org", ""}, {"%s.example.co.uk", ""},
		{"the%sreport.example", ""}, {"%s.example.cn", ""},
	}
	bundlePatterns = []inventoryPattern{
		{"com.%shub.app", "%s Hub"}, {"net.example.%s.lite", "%s Lite"}, {"io.%sly.mobile", "%sly"},
		{"com.example.%s.free", "%s Free"}, {"cn.example.%s", "%s"},
	}
)

// sites and bundles form the shared inventory (60 of each) that campaigns
// target and requests come from.
var sites, bundles = func() ([]inventoryItem, []inventoryItem) {
	var ss, bs []inventoryItem
	for i, t := range inventoryTopics {
		title := strings.ToUpper(t.name[:1]) + t.name[1:]
		sp, bp := sitePatterns[i%len(sitePatterns)], bundlePatterns[i%len(bundlePatterns)]
		ss = append(ss,
			inventoryItem{t.name + ".example.com", t.cat, ""},
			inventoryItem{fmt.Sprintf(sp.name, t.name), t.cat, ""})
		bs = append(bs,
			inventoryItem{"com.example." + t.name, t.cat, "Example " + title},
			inventoryItem{fmt.Sprintf(bp.name, t.name), t.cat, fmt.Sprintf(bp.title, title)})
	}
	return ss, bs
}()

// bundleTitle returns the app name of a bundle.
func bundleTitle(bundle string) string {
	for _, b := range bundles {
		if b.name == bundle {
			return b.title
		}
	}
	return ""
}

// gdprCountries are the countries whose requests carry gdpr=1.
var gdprCountries = []string{"GB", "DE", "FR", "ES", "IT"}

// carriers are mobile network codes (MCC+MNC) by country.
var carriers = map[string][]string{
	"CN": {"46000", "46001", "46011"}, "US": {"310260", "311480", "310410"},
	"GB": {"23410", "23415", "23420"}, "DE": {"26201", "26202", "26203"},
	"JP": {"44010", "44020", "44051"}, "FR": {"20801", "20810", "20815"},
	"IN": {"40445", "405857", "40410"}, "BR": {"72405", "72406", "72411"},
	"CA": {"302720", "302610", "302220"}, "AU": {"50501", "50502", "50503"},
	"KR": {"45005", "45006", "45008"}, "ES": {"21401", "21403", "21407"},
	"IT": {"22201", "22210", "22288"}, "MX": {"334020", "334030", "334050"},
	"ID": {"51010", "51011", "51089"},
}

// androidDevice is a phone or tablet model as it appears in user agents.
type androidDevice struct {
	make, model, build string
	tablet             bool
}

var androidDevices = []androidDevice{
	{"Samsung", "SM-S918B", "UP1A.231005.007", false},
	{"Samsung", "SM-A546E", "UP1A.231005.007", false},
	{"Samsung", "SM-X710", "UP1A.231005.007", true},
	{"Xiaomi", "23049RAD8C", "UKQ1.230804.001", false},
	{"Xiaomi", "2312DRA50C", "UKQ1.231003.002", false},
	{"Google", "Pixel 8", "AP2A.240805.005", false},
	{"Google", "Pixel 7a", "AP2A.240805.005", false},
	{"OPPO", "CPH2581", "UKQ1.230924.001", false},
	{"vivo", "V2250", "TP1A.220624.014", false},
	{"OnePlus", "CPH2449", "UKQ1.230924.001", false},
	{"Lenovo", "TB-J616F", "TP1A.220624.014", true},
	{"HONOR", "ANY-NX1", "HONORANY-N31", false},
}

var (
	androidVersions = []string{"11", "12", "13", "14", "14", "15"}
	chromeVersions  = []string{"120.0.6099.230", "124.0.6367.179", "126.0.6478.122", "128.0.6613.146", "130.0.6723.107", "131.0.6778.81"}
	iosVersions     = []string{"16_7_10", "17_5_1", "17_6_1", "18_0_1", "18_1"}
	desktopChrome   = []string{"120", "126", "128", "130", "131"}
	firefoxVersions = []string{"115", "128", "131", "132", "133"}
	safariVersions  = []string{"16.6", "17.5", "17.6", "18.1"}
	connTypes       = []string{"2", "3", "5", "6", "6", "2"}
)
