package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// readyCmd implements `guard-consumer ready`: it asks a guard-consumer's
// /readyz and exits 0 if it is ready. A container built FROM scratch has no
// curl, so its health check runs this.
func readyCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("guard-consumer ready", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("http", DefaultHTTP, "host:port the guard-consumer serves HTTP on")
	timeout := fs.Duration("timeout", 2*time.Second, "how long to wait for the answer")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "guard-consumer ready: %v\n", err)
		return 2
	}
	host := strings.Replace(*addr, "0.0.0.0:", "127.0.0.1:", 1)
	client := &http.Client{Timeout: *timeout}
	resp, err := client.Get("http://" + host + "/readyz")
	if err != nil {
		fmt.Fprintf(stderr, "guard-consumer ready: %v\n", err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	fmt.Fprint(stdout, string(body))
	if resp.StatusCode != http.StatusOK {
		return 1
	}
	return 0
}
