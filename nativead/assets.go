package nativead

// assets reads "assets"; when the key repeats, the last array counts.
func (d *decoder) assets() {
	r := d.r
	if !d.array() {
		return
	}
	r.n, r.Dropped, r.DroppedRequired = 0, 0, false
	var past Asset // an asset past MaxAssets: read for its required flag
	for d.s.ReadArray() {
		if !d.object() {
			continue // not an asset: absent
		}
		a := &past
		if r.n < MaxAssets {
			a = &r.assets[r.n]
			r.n++
		}
		*a = Asset{}
		d.asset(a)
		if a == &past {
			r.Dropped++
			r.DroppedRequired = r.DroppedRequired || past.Required
		}
	}
}

// asset reads one asset object.
func (d *decoder) asset(a *Asset) {
	var kinds uint8 // 1 << Kind of each kind present
	for key, ok := d.s.ReadObject(); ok; key, ok = d.s.ReadObject() {
		switch string(key) {
		case "id":
			a.ID, a.idOK = d.integer()
		case "required":
			n, ok := d.integer()
			a.Required = ok && n == 1
		case "title":
			if d.object() {
				kinds |= 1 << KindTitle
				d.title(a)
			}
		case "img":
			if d.object() {
				kinds |= 1 << KindImage
				d.img(a)
			}
		case "data":
			if d.object() {
				kinds |= 1 << KindData
				d.data(a)
			}
		case "video":
			if d.object() {
				kinds |= 1 << KindVideo
				d.s.Skip() // dspd has no video to offer
			}
		default: // ext…
			d.s.Skip()
		}
		if d.s.Err() != nil {
			return
		}
	}
	switch kinds {
	case 0:
		a.Kind = KindNone
	case 1 << KindTitle:
		a.Kind = KindTitle
	case 1 << KindImage:
		a.Kind = KindImage
	case 1 << KindData:
		a.Kind = KindData
	case 1 << KindVideo:
		a.Kind = KindVideo
	default:
		a.Kind = KindMixed
	}
}

func (d *decoder) title(a *Asset) {
	a.Len = 0
	for key, ok := d.s.ReadObject(); ok; key, ok = d.s.ReadObject() {
		if string(key) == "len" {
			a.Len = d.int0()
		} else {
			d.s.Skip()
		}
	}
}

func (d *decoder) img(a *Asset) {
	a.Type, a.W, a.H, a.WMin, a.HMin = 0, 0, 0, 0, 0
	for key, ok := d.s.ReadObject(); ok; key, ok = d.s.ReadObject() {
		switch string(key) {
		case "type":
			a.Type = d.int0()
		case "w":
			a.W = d.int0()
		case "h":
			a.H = d.int0()
		case "wmin":
			a.WMin = d.int0()
		case "hmin":
			a.HMin = d.int0()
		default: // mimes (not checked), ext
			d.s.Skip()
		}
	}
}

func (d *decoder) data(a *Asset) {
	a.Type, a.Len = 0, 0
	for key, ok := d.s.ReadObject(); ok; key, ok = d.s.ReadObject() {
		switch string(key) {
		case "type":
			a.Type = d.int0()
		case "len":
			a.Len = d.int0()
		default:
			d.s.Skip()
		}
	}
}

// Event tracking (Native 1.2 sections 7.6 and 7.7).
const (
	eventImpression = 1
	methodImg       = 1
	methodJS        = 2
)

// eventTrackers reads "eventtrackers": the request lists them, and which
// methods it offers for the impression. A repeated key adds to the first.
func (d *decoder) eventTrackers() {
	r := d.r
	if !d.array() {
		return
	}
	r.EventTrackers = true
	for d.s.ReadArray() {
		if !d.object() {
			continue
		}
		event, img, js := 0, false, false
		for key, ok := d.s.ReadObject(); ok; key, ok = d.s.ReadObject() {
			switch string(key) {
			case "event":
				event = d.int0()
			case "methods":
				img, js = d.methods()
			default:
				d.s.Skip()
			}
		}
		if event == eventImpression {
			r.ImpImg = r.ImpImg || img
			r.ImpJS = r.ImpJS || js
		}
	}
}

// methods reads an array of methods: whether it holds img and js.
func (d *decoder) methods() (img, js bool) {
	if !d.array() {
		return false, false
	}
	for d.s.ReadArray() {
		n, ok := d.integer()
		img = img || ok && n == methodImg
		js = js || ok && n == methodJS
	}
	return img, js
}
