// Command fakekafka runs franz-go's in-process Kafka cluster (pkg/kfake)
// on a loopback port, with one topic, until it is interrupted: the broker
// dspd ships its event log to in make events-rate, where no real Kafka is
// installed. It keeps everything in memory and is for measurements and
// tests only.
//
//	fakekafka -addr 127.0.0.1:19092 -topic dspd-events -partitions 3
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:19092", "loopback address to listen on")
	topic := flag.String("topic", "dspd-events", "the topic to create")
	partitions := flag.Int("partitions", 3, "its partitions")
	flag.Parse()
	if err := run(*addr, *topic, int32(*partitions)); err != nil {
		fmt.Fprintln(os.Stderr, "fakekafka:", err)
		os.Exit(1)
	}
}

func run(addr, topic string, partitions int32) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-addr %s: loopback only", addr)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return fmt.Errorf("-addr %s: %w", addr, err)
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(p), kfake.ListenFn(func(network, a string) (net.Listener, error) {
		return net.Listen(network, net.JoinHostPort(host, strconv.Itoa(p)))
	}), kfake.SeedTopics(partitions, topic))
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Println("fakekafka listening on", c.ListenAddrs()[0], "topic", topic)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return nil
}
