package auth

import (
	"errors"
	"fmt"
	"net"

	"github.com/nats-io/nats-server/v2/server"
)

// ErrOpenPort marks a server that would let connections without
// credentials in from beyond loopback.
var ErrOpenPort = errors.New("auth: anonymous agents beyond loopback")

// Loopback reports whether host names the loopback interface only.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Anonymous reports whether the server o configures lets connections
// without credentials in, and as whom.
func Anonymous(o *server.Options) (bool, string) {
	switch {
	case len(o.TrustedOperators) > 0:
		return false, ""
	case o.NoAuthUser != "":
		return true, "no_auth_user " + o.NoAuthUser
	case len(o.Users) == 0 && len(o.Nkeys) == 0 && o.Username == "" && o.Authorization == "" && o.CustomClientAuthentication == nil:
		return true, "no authorization at all"
	}
	return false, ""
}

// CheckListen refuses a server configuration that lets connections
// without credentials in on an interface beyond loopback, unless insecure
// says the operator accepts that every host that reaches the port may act
// as an agent (and, without any authorization, as anything).
func CheckListen(o *server.Options, insecure bool) error {
	anon, how := Anonymous(o)
	if !anon || Loopback(o.Host) || insecure {
		return nil
	}
	host := o.Host
	if host == "" {
		host = "every interface"
	}
	return fmt.Errorf("%w: the server listens on %s and lets connections without credentials in (%s). "+
		"Listen on 127.0.0.1, or give -server-config with credentials (guard-consumer creds init), "+
		"or, to accept that any host reaching the port may act as an agent, pass -insecure-anonymous",
		ErrOpenPort, net.JoinHostPort(host, fmt.Sprint(o.Port)), how)
}
