// Command hbase-container runs one HBase in a container through
// testcontainers-go for a whole test run, and removes it when told to stop.
//
// It starts the container (see package hbasetest: host networking, the
// servers advertise 127.0.0.1, free loopback ports unless HBKIT_ZK_PORT,
// HBKIT_MASTER_PORT and HBKIT_RS_PORT say otherwise), waits until the master
// answers, prints HBKIT_ZK=host:port (and writes it to -env FILE, as a shell
// assignment, once ready), then waits for SIGINT or SIGTERM and terminates
// the container. tools/ci-containers.sh runs go test ./... in between.
//
// Usage:
//
//	hbase-container [-env FILE] [-image REF]
//
// The image defaults to HBKIT_IMAGE, else the one tools/image/build.sh
// builds. The engine is the one testcontainers-go finds (DOCKER_HOST); with
// podman, set TESTCONTAINERS_RYUK_DISABLED=true (the reaper image cannot be
// pulled).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hbkit/hbkit/integration/hbasetest"
)

func main() {
	envFile := flag.String("env", "", "write HBKIT_ZK=… to this file once HBase is ready")
	image := flag.String("image", "", "image to run (default $HBKIT_IMAGE, else tools/image/build.sh)")
	flag.Parse()
	if err := run(*envFile, *image); err != nil {
		fmt.Fprintln(os.Stderr, "hbase-container:", err)
		os.Exit(1)
	}
}

func run(envFile, image string) error {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	opts := []hbasetest.Option{hbasetest.WithMode(hbasetest.ModeContainer)}
	if image != "" {
		opts = append(opts, hbasetest.WithImage(image))
	}
	h, err := hbasetest.Start(ctx, opts...)
	if err != nil {
		return err
	}
	line := hbasetest.EnvZK + "=" + h.ZK
	fmt.Println(line)
	fmt.Printf("hbase-container: ready in %.1fs (image %s); SIGTERM or Ctrl-C stops it\n", h.Ready.Seconds(), h.Image)
	if envFile != "" {
		if err := writeEnv(envFile, line); err != nil {
			_ = stop(h)
			return err
		}
	}
	<-ctx.Done()
	return stop(h)
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

func stop(h *hbasetest.HBase) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	begin := time.Now()
	if err := h.Stop(ctx); err != nil {
		return err
	}
	fmt.Printf("hbase-container: container removed in %.1fs\n", time.Since(begin).Seconds())
	return nil
}
