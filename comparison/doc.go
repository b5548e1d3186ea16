// Package comparison re-runs the 2016 Go-versus-Tomcat experiment fairly:
// it starts dspd (with and without profile-guided optimisation) and the Java
// baseline on the same campaigns, checks that they decide alike, pins the
// servers and the load driver to different CPUs, gives both runtimes the
// same CPU count and memory, tries the Java baseline's thread settings and
// garbage collectors (those its JVM runs) to run it on its best, warms them
// up, and runs the same scenarios against each in alternating rounds. It
// records throughput, latency percentiles, CPU time per request, peak
// memory and start-up time, and writes a terminal table, a Markdown
// report, a JSON report and charts.
//
// cmd/compare is its command line; `make compare-java` runs it.
package comparison
