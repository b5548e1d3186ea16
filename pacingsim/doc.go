// Package pacingsim simulates days of bid traffic against the real engine
// and its pacing controllers, on an injected clock: no sleeps, no
// goroutines, the same figures from the same seed. Each campaign gets its
// own stream of requests (its own site), following a daily curve
// a·(1 + b·cos(2π(t − peak)/1440)) with t in minutes (b = 2/3: the peak is
// five times the trough); a bid wins with a fixed probability at a clearing
// price drawn log-normally below the bid, its win notice arriving 0–60 s
// later; the controllers tick each simulated minute. On one day the traffic
// doubles from a given time (a step), to see how fast the controllers
// follow. Run measures what the goals of even pacing are stated in (final
// daily spend, the worst hourly gap to the traffic-shaped target, the
// response to the step), and writes a table, a JSON file and a chart
// (cmd/pacingsim, make pacing-sim).
package pacingsim
