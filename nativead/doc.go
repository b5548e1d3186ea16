// Package nativead answers OpenRTB native impressions (the IAB's "OpenRTB
// Native Ads Specification 1.2", cited below by section): it reads an
// impression's native request, decides whether a creative fits it, and
// writes the native answer that goes in the bid's adm. Nothing on that
// path allocates: a pooled Request keeps its buffers, a Plan is a value,
// and the answer is appended to the caller's buffer.
//
// # Reading
//
// ParseRequest reads the raw JSON value of imp.native.request: a JSON
// string holding the request's JSON text, as OpenRTB 2.x has it, or that
// object itself, as some exchanges send it (section 4.1 allows both); the
// string is unescaped into the Request's own buffer and read with
// jsoncodec's Scanner, in place. The request object may also come wrapped
// as {"native":{…}}, the root of Native 1.0 (the note of section 4.1). It
// reads ver, context, contextsubtype, plcmttype, plcmtcnt, the assets
// (id, required, and one of title{len}, img{type, w, h, wmin, hmin},
// data{type, len}, video) and the eventtrackers (event, methods); the
// rest (seq, aurlsupport, durlsupport, privacy, mimes, ext…) is skipped,
// its syntax checked. Native 1.0 to 1.2 have no flag telling whether the
// older imptrackers are supported: there is none to read.
//
// The field policy is the bid request's: a malformed part (a value of
// the wrong kind, an integer out of [0, 2^31-1] or with a fraction) is
// treated as absent, null is absent, and when a key repeats its last value
// counts. Only a value that is not valid JSON, not an object (or a string
// holding one), or without any asset object is refused (ErrInvalid), and
// then dspd does not bid on that impression.
//
// # Fitting
//
// Fit decides whether a Creative fits: it must fill every required asset
// within the asset's limits; an asset that is not required is filled when
// the creative can fill it, and left out otherwise. The rules:
//
//   - title: Creative.Title, at most len characters (len absent or 0: any
//     length). A longer title is a mismatch: never cut.
//   - img type 3 (main): the main image; type 1 (icon): the icon (IconURL
//     "": none). Each dimension must be at least its minimum (wmin, hmin)
//     when the request sets one, else exactly its size (w, h) when it sets
//     that, else any: "if only w is included, it should be considered an
//     exact requirement" (section 4.4).
//   - data type 1 (sponsored): Creative.Sponsored; 2 (desc): Body; 12
//     (ctatext): CTA; each at most len characters when len is set (the
//     recommended maxima of section 7.4 only when the request gives them);
//     longer is a mismatch, an empty text cannot fill. Other data types
//     (rating, likes, price, phone, address…) are never filled.
//   - video: never filled; a required one is a mismatch.
//   - the creative needs a ClickURL: the answer's link is required
//     (section 5.1).
//
// # Writing
//
// AppendResponse writes the answer of section 5 as the inside of a JSON
// string, so that the caller writes "adm":" + it + ". The creative's
// texts and URLs are escaped twice, with jsoncodec.AppendString's minimal
// escaping each time; the click and impression URLs the caller passes
// are already escaped so. Prepare does the creative's part once per
// catalogue load (PreparedCreative), which leaves copies to the bid.
//
// # Choices
//
// Where the specification leaves room, or where this package departs from
// the obvious reading, it decides as follows.
//
//   - Root of the answer: the Native 1.2 response object itself,
//     {"ver":"1.2","assets":[…],…}, since section 5.1 makes it the root
//     from 1.1 on, and Prebid reads the assets there (Prebid.js's ORTB
//     converter refuses an adm without them at the root; Prebid Server
//     reads the root for its native types); wrapped in {"native":…} only
//     when the request was (1.0 style).
//   - Version: the answer says "ver":"1.2" whatever the request's ver.
//   - Characters are Unicode code points (runes), not bytes, UTF-16 units
//     or graphemes: "é" is one, an emoji outside the BMP is one (a
//     JavaScript renderer counting UTF-16 units sees two). A byte that is
//     not valid UTF-8 counts as one and is written as U+FFFD.
//   - img type 2 (logo in 1.0 and 1.1) is filled with the icon: section
//     7.5 merged it into type 1, "app icon, brand logo, or similar". An
//     img without a type, or of any other type (500+), is never filled,
//     since what it shows is unknown.
//   - Sizes: each dimension is checked on its own (wmin with h is "at
//     least wmin wide, exactly h high"); aspect ratios (section 7.5's
//     recommendations) are not checked; an image of unknown size (0)
//     meets no size the request sets. img.mimes is not checked: a
//     Creative carries no image type.
//   - A title without len (which section 4.3 requires) takes any length.
//   - An asset is malformed, never filled, when its id is missing or not
//     an integer in [0, 2^31-1], when another asset has the same id (both
//     are), or when it holds more than one of title, img, data and video.
//     An asset with none of them is never filled. "required" is 1 only as
//     the integer 1; anything else is 0.
//   - At most MaxAssets (16) assets are kept; those past it are counted
//     (Request.Dropped) and read for their required flag: a required one
//     is a mismatch, since the answer could not carry it.
//   - A fit needs at least one filled asset: an answer without assets is
//     no answer (section 5.1 requires them without assetsurl).
//   - The answer echoes no "required": in a response it is the bidder's
//     own flag (section 5.2), and the asset id already aligns each answer
//     with the request's asset. No len, type or asset link is written (all
//     optional for embedded assets); img w and h are, when known.
//   - Impression tracking: section 5.8 lets the bidder answer only with
//     methods the request offers. When the request lists eventtrackers
//     and one offers event 1 (impression) with method 1 (img), the tracker
//     is {"event":1,"method":1,"url":…} in eventtrackers; otherwise (no
//     eventtrackers listed, as in 1.0 and 1.1, or none offering img for
//     the impression, a js-only offer included) it is in imptrackers,
//     deprecated in 1.2 but still valid, and the one form every version
//     reads. A renderer that reads neither does not count the impression;
//     the caller can see the case (Plan.Tracking, Request.EventTrackers)
//     and decide not to bid. The two forms are never both written: a
//     renderer reading both would fire the tracker twice.
//   - The request key "eventrackers", as the specification's own samples
//     (sections 6.1 and 6.2) spell it, is read as "eventtrackers"; the two
//     add up.
//   - The 1.0 wrapper is read only at the root, and the members beside it
//     are read too (the assets of the last "assets" key count).
//   - plcmtcnt above 1 is answered with one ad; context, contextsubtype,
//     plcmttype and ver are informational.
package nativead
