// Package managed is the campaign set managed through the API (docs/api.md):
// each campaign a document in the campaigns file's spelling with a version,
// kept in the state (the disk state's Pebble, Redis, or memory); every
// change checked by the campaigns file's rules (bidder.CheckCampaignDoc),
// committed by compare-and-set on its version together with its audit
// entry, put in service on this dspd before it is acknowledged, and on the
// other replicas of a shared state when the store's change notice reaches
// them.
//
// The file and the managed set: with the API on, dspd seeds an empty
// state's set from -campaigns once; from then on the state is the source
// of truth and the file is not read again (Service.Start says which one
// serves and why).
package managed
