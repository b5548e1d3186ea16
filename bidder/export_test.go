package bidder

// BlockSize exposes blockSize to the external tests.
const BlockSize = blockSize
