package bidder

// FirstBlock exposes firstBlock to the external tests.
const FirstBlock = firstBlock
