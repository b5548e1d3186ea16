package overload

import (
	"errors"
	"io"
	"os"
	"time"
)

// Config describes a measurement. Zero fields take the defaults.
type Config struct {
	Dspd      string    // the dspd binary; required
	Body      string    // the recbid form body; required (its tmax=… is set to Tmax)
	FrontEnds []string  // dspd -http values; default chi and fasthttp
	Factors   []float64 // the overloads, as multiples of capacity; default 1.5 and 2
	Conns     int       // connections the load keeps open (the exchange's pool); default 1000
	// Tmax is the requests' tmax and the load's deadline; default 50ms.
	Tmax time.Duration
	// SendWithin is how late a request may still be sent when no
	// connection was free at its time; default 5ms.
	SendWithin time.Duration
	Capacity   time.Duration // the closed-loop capacity run; default 10s
	Overload   time.Duration // each overload; default 30s
	After      time.Duration // half capacity after it; default 10s
	Slice      time.Duration // the timeline's resolution; default 100ms
	ServerCPU  string        // taskset's CPU list for dspd; default "0"
	// Recovered is the p99 under which a slice of answers is normal
	// again; default 50ms.
	Recovered time.Duration
	Port      int       // dspd's public port (admin: Port+1); default 19791
	LogDir    string    // where dspd's output goes; default the system's temporary directory
	Log       io.Writer // progress lines; nil is silent
}

func (c *Config) defaults() error {
	if c.Dspd == "" || c.Body == "" {
		return errors.New("overload: the dspd binary and the body are required")
	}
	if len(c.FrontEnds) == 0 {
		c.FrontEnds = []string{"chi", "fasthttp"}
	}
	if len(c.Factors) == 0 {
		c.Factors = []float64{1.5, 2}
	}
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	set(&c.Tmax, 50*time.Millisecond)
	set(&c.SendWithin, 5*time.Millisecond)
	set(&c.Capacity, 10*time.Second)
	set(&c.Overload, 30*time.Second)
	set(&c.After, 10*time.Second)
	set(&c.Slice, 100*time.Millisecond)
	set(&c.Recovered, 50*time.Millisecond)
	if c.Conns <= 0 {
		c.Conns = 1000
	}
	if c.ServerCPU == "" {
		c.ServerCPU = "0"
	}
	if c.Port == 0 {
		c.Port = 19791
	}
	if c.LogDir == "" {
		c.LogDir = os.TempDir()
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return nil
}
