package emulator

import (
	"io"
	"net/http"
)

// HTTPClient returns the HTTP client that SDK clients talking to the emulator should use
// (aws.Config.HTTPClient). The emulator answers from loopback within microseconds, and that
// exposes a race in smithy-go: it closes the request body as soon as the response headers
// arrive, and its closed body then answers WriteTo with io.EOF. If net/http's transport has
// not yet finished checking the body for extra bytes, it takes that io.EOF for a write error
// and closes the connection under the response being read, so a large response fails with
// "use of closed network connection". Against AWS the answer never arrives that fast. This
// client hides WriteTo from request bodies, which removes the race; its idle connections are
// closed when the emulator closes.
func (e *Emulator) HTTPClient() *http.Client {
	return &http.Client{Transport: bodyReadOnly{base: e.transport}}
}

// bodyReadOnly sends request bodies through Read only.
type bodyReadOnly struct {
	base http.RoundTripper
}

func (b bodyReadOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		r := req.Clone(req.Context())
		r.Body = readOnlyBody{req.Body}
		req = r
	}
	return b.base.RoundTrip(req)
}

type readOnlyBody struct {
	rc io.ReadCloser
}

func (r readOnlyBody) Read(p []byte) (int, error) { return r.rc.Read(p) }
func (r readOnlyBody) Close() error               { return r.rc.Close() }
