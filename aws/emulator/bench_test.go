package emulator

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// serve runs one query request through the emulator's handler, without a network.
func serve(e *Emulator, body string) int {
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	e.ServeHTTP(w, r)
	return w.Code
}

func BenchmarkDescribeInstanceTypesPage(b *testing.B) {
	e, _, _ := startFakeB(b)
	for b.Loop() {
		if code := serve(e, "Action=DescribeInstanceTypes&Version=2016-11-15&MaxResults=100"); code != 200 {
			b.Fatal(code)
		}
	}
}

func BenchmarkDescribeSpotPriceHistoryLatest(b *testing.B) {
	e, _, _ := startFakeB(b)
	for b.Loop() {
		if code := serve(e, "Action=DescribeSpotPriceHistory&Version=2016-11-15&ProductDescription.1=Linux%2FUNIX"); code != 200 {
			b.Fatal(code)
		}
	}
}

func TestAllocateIPWalksTheBlock(t *testing.T) {
	e, _, _ := startFake(t, Config{})
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.world.subnets[1]
	got := []string{s.allocateIP().String(), s.allocateIP().String()}
	s.next = s.size // wraps to the first address again
	got = append(got, s.allocateIP().String())
	if want := []string{"10.0.32.4", "10.0.32.5", "10.0.32.4"}; !equalStrings(got, want) {
		t.Errorf("addresses %v, want %v", got, want)
	}
}
