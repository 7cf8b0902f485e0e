package v1

// MetadataOptions configure the instance metadata service (IMDS) of launched nodes.
type MetadataOptions struct {
	// HTTPEndpoint enables or disables the metadata endpoint.
	// +kubebuilder:default=enabled
	// +kubebuilder:validation:Enum:={enabled,disabled}
	// +optional
	HTTPEndpoint *string `json:"httpEndpoint,omitempty"`
	// HTTPProtocolIPv6 enables or disables the IPv6 metadata endpoint.
	// +kubebuilder:default=disabled
	// +kubebuilder:validation:Enum:={enabled,disabled}
	// +optional
	HTTPProtocolIPv6 *string `json:"httpProtocolIPv6,omitempty"`
	// HTTPPutResponseHopLimit is how many network hops a metadata PUT response may travel (1 to
	// 64).
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum:=1
	// +kubebuilder:validation:Maximum:=64
	// +optional
	HTTPPutResponseHopLimit *int64 `json:"httpPutResponseHopLimit,omitempty"`
	// HTTPTokens says whether metadata requests need a session token (IMDSv2): required or
	// optional.
	// +kubebuilder:default=required
	// +kubebuilder:validation:Enum:={required,optional}
	// +optional
	HTTPTokens *string `json:"httpTokens,omitempty"`
}

// Metadata option values.
const (
	MetadataHTTPEndpointEnabled      = "enabled"
	MetadataHTTPEndpointDisabled     = "disabled"
	MetadataHTTPProtocolIPv6Enabled  = "enabled"
	MetadataHTTPProtocolIPv6Disabled = "disabled"
	MetadataHTTPTokensRequired       = "required"
	MetadataHTTPTokensOptional       = "optional"
)
