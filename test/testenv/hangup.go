package testenv

import (
	"context"
	"errors"
	"net/http"
	"testing"
)

// HangUp sends a GET with the bearer token and cancels it, as a client
// disconnecting mid-request, once entered is closed (the server side has
// reached the point the test wants interrupted).
func HangUp(t testing.TB, url, token string, entered <-chan struct{}) {
	t.Helper()
	ctx, hangUp := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	sent := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
		}
		sent <- err
	}()
	<-entered
	hangUp()
	if err := <-sent; !errors.Is(err, context.Canceled) {
		t.Fatalf("GET %s: want the client's cancellation, got %v", url, err)
	}
}
