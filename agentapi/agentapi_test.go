package agentapi_test

import (
	"testing"

	"github.com/guardstream/guardstream/agentapi"
)

func TestTenantOf(t *testing.T) {
	for subj, want := range map[string]string{
		"guard.api.acme.page":           "acme",
		"guard.api.ünïcode-t.decisions": "ünïcode-t",
	} {
		if got, err := agentapi.TenantOf(subj); err != nil || got != want {
			t.Errorf("TenantOf(%q) = %q, %v; want %q", subj, got, err, want)
		}
	}
	for _, subj := range []string{"guard.api.page", "guard.api..page", "guard.ctl.acme.page", "guard.api.a.b.page", "guard.api.acme"} {
		if got, err := agentapi.TenantOf(subj); err == nil {
			t.Errorf("TenantOf(%q) = %q; want an error", subj, got)
		}
	}
	if s, _ := agentapi.Subject("acme", agentapi.Page); s != "guard.api.acme.page" {
		t.Errorf("Subject: %q", s)
	}
	if _, err := agentapi.Subject("a.b", agentapi.Page); err == nil {
		t.Error("Subject accepted a tenant with a dot")
	}
}
