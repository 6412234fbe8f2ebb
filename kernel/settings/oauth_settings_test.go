package settings

import (
	"errors"
	"testing"
	"time"
)

// TestOAuthLifetimesAreValidated: the OAuth lifetimes have their defaults,
// and a value that is not positive or above its maximum stops the process
// with an error naming the setting.
func TestOAuthLifetimesAreValidated(t *testing.T) {
	c, err := Load("test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.OAuthCodeTTL != time.Minute || c.AccessTokenTTL != time.Hour || c.RefreshTokenTTL != 720*time.Hour || c.OAuthSweepInterval != time.Hour {
		t.Errorf("defaults: code %s, access %s, refresh %s, sweep %s", c.OAuthCodeTTL, c.AccessTokenTTL, c.RefreshTokenTTL, c.OAuthSweepInterval)
	}
	for _, bad := range [][2]string{
		{"oauth-code-ttl", "0s"}, {"oauth-code-ttl", "11m"},
		{"access-token-ttl", "-1h"}, {"access-token-ttl", "25h"},
		{"refresh-token-ttl", "0s"}, {"refresh-token-ttl", "8761h"},
		{"oauth-sweep-interval", "30s"}, {"oauth-sweep-interval", "25h"},
	} {
		_, err := Load("test", []string{"--" + bad[0], bad[1]})
		var inv *InvalidError
		if !errors.As(err, &inv) || inv.Flag != bad[0] {
			t.Errorf("--%s %s: %v, want an InvalidError naming it", bad[0], bad[1], err)
		}
	}
	c, err = Load("test", []string{"--access-token-ttl", "15m", "--refresh-token-ttl", "24h", "--oauth-code-ttl", "30s"})
	if err != nil || c.AccessTokenTTL != 15*time.Minute || c.RefreshTokenTTL != 24*time.Hour || c.OAuthCodeTTL != 30*time.Second {
		t.Errorf("accepted values: %+v, %v", c, err)
	}
}
