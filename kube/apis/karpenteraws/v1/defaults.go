package v1

// Defaults the CRD declares for spec.metadataOptions.
const (
	DefaultHTTPEndpoint            = MetadataHTTPEndpointEnabled
	DefaultHTTPProtocolIPv6        = MetadataHTTPProtocolIPv6Disabled
	DefaultHTTPPutResponseHopLimit = int64(1)
	DefaultHTTPTokens              = MetadataHTTPTokensRequired
)

// SetDefaults fills in what an API server would from the EC2NodeClass CRD's defaults, for
// objects that never went through one. It leaves set fields alone.
func (nc *EC2NodeClass) SetDefaults() {
	if nc.Spec.MetadataOptions == nil {
		nc.Spec.MetadataOptions = &MetadataOptions{}
	}
	m := nc.Spec.MetadataOptions
	if m.HTTPEndpoint == nil {
		m.HTTPEndpoint = ptr(DefaultHTTPEndpoint)
	}
	if m.HTTPProtocolIPv6 == nil {
		m.HTTPProtocolIPv6 = ptr(DefaultHTTPProtocolIPv6)
	}
	if m.HTTPPutResponseHopLimit == nil {
		m.HTTPPutResponseHopLimit = ptr(DefaultHTTPPutResponseHopLimit)
	}
	if m.HTTPTokens == nil {
		m.HTTPTokens = ptr(DefaultHTTPTokens)
	}
}

func ptr[T any](v T) *T { return &v }
