// Command hbase-container runs one HBase in a container (package
// hbasecontainer) for a whole test run, and removes it when told to stop.
//
// It starts the image, waits until HBase is ready, prints HBKIT_ZK=host:port
// (and writes it to -env FILE, as a shell assignment, once ready), then
// waits for SIGINT or SIGTERM and terminates the container.
// tools/ci-containers.sh runs go test between the two.
//
// Usage:
//
//	hbase-container -image REF [-env FILE] [-host-network]
//
// The image defaults to $HBKIT_IMAGE. HBKIT_ZK_PORT, HBKIT_MASTER_PORT and
// HBKIT_RS_PORT set the ports (default: free ones). The engine is the one
// testcontainers-go finds (DOCKER_HOST); with podman, set
// TESTCONTAINERS_RYUK_DISABLED=true when the reaper image cannot be
// pulled.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/hbkit/hbkit/hbasecontainer"
)

func main() {
	envFile := flag.String("env", "", "write HBKIT_ZK=… to this file once HBase is ready")
	image := flag.String("image", os.Getenv("HBKIT_IMAGE"), "image to run (default $HBKIT_IMAGE)")
	hostNet := flag.Bool("host-network", false, "run on the host's network instead of published ports")
	flag.Parse()
	if err := run(*envFile, *image, *hostNet); err != nil {
		fmt.Fprintln(os.Stderr, "hbase-container:", err)
		os.Exit(1)
	}
}

func run(envFile, image string, hostNet bool) error {
	if image == "" {
		return errors.New("no image: pass -image or set HBKIT_IMAGE (tools/image/build.sh builds one)")
	}
	ports, err := portsFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	opts := []testcontainers.ContainerCustomizer{hbasecontainer.WithPorts(ports)}
	if hostNet {
		opts = append(opts, hbasecontainer.WithHostNetwork())
	}
	begin := time.Now()
	ctr, err := hbasecontainer.Run(ctx, image, opts...)
	if err != nil {
		if ctr != nil {
			_ = stop(ctr)
		}
		return err
	}
	zk, _ := ctr.ZK(ctx)
	line := "HBKIT_ZK=" + zk
	fmt.Println(line)
	fmt.Printf("hbase-container: ready in %.1fs (image %s, ports %+v); SIGTERM or Ctrl-C stops it\n",
		time.Since(begin).Seconds(), image, ctr.Ports())
	if envFile != "" {
		if err := writeEnv(envFile, line); err != nil {
			_ = stop(ctr)
			return err
		}
	}
	<-ctx.Done()
	return stop(ctr)
}

// portsFromEnv reads HBKIT_ZK_PORT, HBKIT_MASTER_PORT and HBKIT_RS_PORT;
// unset ones stay 0 (a free port).
func portsFromEnv(getenv func(string) string) (hbasecontainer.Ports, error) {
	var p hbasecontainer.Ports
	for _, v := range []struct {
		dst  *int
		name string
	}{{&p.ZK, "HBKIT_ZK_PORT"}, {&p.Master, "HBKIT_MASTER_PORT"}, {&p.RegionServer, "HBKIT_RS_PORT"}} {
		s := getenv(v.name)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return p, fmt.Errorf("%s=%q is not a port", v.name, s)
		}
		*v.dst = n
	}
	return p, nil
}

// writeEnv writes line to path whole, then renames it into place: a reader
// polling for the file never sees half a line.
func writeEnv(path, line string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(line+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func stop(ctr *hbasecontainer.Container) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	begin := time.Now()
	// HBase's own shutdown takes 20 s or more; the data is throwaway.
	if err := ctr.Terminate(ctx, testcontainers.StopTimeout(5*time.Second)); err != nil {
		return err
	}
	fmt.Printf("hbase-container: container removed in %.1fs\n", time.Since(begin).Seconds())
	return nil
}
