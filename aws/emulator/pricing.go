package emulator

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
)

// product is one EC2 price list product: a Linux, on-demand instance type, shared tenancy
// (dedicated for bare metal).
type product struct {
	sku        string
	family     string
	attributes map[string]string
	price      float64
	typeName   string
}

// regionLocation is the Pricing API's location name of a region.
func regionLocation(region string) string {
	names := map[string]string{
		"us-east-1": "US East (N. Virginia)", "us-east-2": "US East (Ohio)", "us-west-1": "US West (N. California)",
		"us-west-2": "US West (Oregon)", "eu-west-1": "EU (Ireland)", "eu-central-1": "EU (Frankfurt)",
		"ap-southeast-1": "Asia Pacific (Singapore)", "ap-northeast-1": "Asia Pacific (Tokyo)",
	}
	if n, ok := names[region]; ok {
		return n
	}
	return region
}

func instanceFamilyName(category string) string {
	switch category {
	case "c":
		return "Compute optimized"
	case "r", "x", "u", "z":
		return "Memory optimized"
	case "i", "d", "h", "im", "is":
		return "Storage optimized"
	case "p", "g", "inf", "trn", "dl", "f", "vt", "gr":
		return "GPU instance"
	}
	return "General purpose"
}

// productFor builds the price list product of an instance type (prices from the catalog).
func (e *Emulator) productFor(t *instanceType) product {
	region := e.cfg.Region
	usage := "BoxUsage:" + t.Name
	if region != "us-east-1" {
		usage = strings.ToUpper(regionShort(region)) + "-" + usage
	}
	processor := map[string]string{"AWS": "AWS Graviton", "AMD": "AMD EPYC", "Intel": "Intel Xeon"}[t.CPUManufacturer]
	perf, _ := t.networkPerformance()
	attrs := map[string]string{
		"servicecode": "AmazonEC2", "servicename": "Amazon Elastic Compute Cloud",
		"location": regionLocation(region), "locationType": "AWS Region", "regionCode": region,
		"instanceType": t.Name, "instanceFamily": instanceFamilyName(t.Category), "currentGeneration": map[bool]string{true: "Yes", false: "No"}[t.CurrentGeneration],
		"vcpu": strconv.FormatInt(t.VCPUs, 10), "memory": strconv.FormatFloat(float64(t.MemoryMiB)/1024, 'f', -1, 64) + " GiB",
		"storage": "EBS only", "networkPerformance": perf, "processorArchitecture": "64-bit", "physicalProcessor": processor,
		"operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA", "capacitystatus": "Used",
		"marketoption": "OnDemand", "licenseModel": "No License required", "usagetype": usage, "operation": "RunInstances",
		"gpuMemory": "NA",
	}
	if t.GPUCount > 0 {
		attrs["gpu"] = strconv.FormatInt(t.GPUCount, 10)
		attrs["gpuMemory"] = strconv.FormatInt(t.GPUCount*t.GPUMemoryMiB/1024, 10) + " GiB"
	}
	family := "Compute Instance"
	if t.bareMetal() {
		// As the price list does: metal hosts are whole machines, listed under dedicated tenancy.
		family, attrs["tenancy"] = "Compute Instance (bare metal)", "Dedicated"
	}
	sku := strings.ToUpper(hashHex("sku\x00"+region+"\x00"+t.Name, 16))
	return product{sku: sku, family: family, attributes: attrs, price: t.OnDemandPrice, typeName: t.Name}
}

// field returns a product's value for a Pricing filter field (case-insensitive, as the API).
func (p product) field(name string) (string, bool) {
	switch strings.ToLower(name) {
	case "productfamily":
		return p.family, true
	case "servicecode":
		return "AmazonEC2", true
	case "sku":
		return p.sku, true
	}
	for k, v := range p.attributes {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

type pricingFilter struct {
	Type  string
	Field string
	Value string
}

func (f pricingFilter) match(p product) bool {
	v, ok := p.field(f.Field)
	switch f.Type {
	case "TERM_MATCH", "EQUALS":
		return ok && strings.EqualFold(v, f.Value)
	case "CONTAINS":
		return ok && strings.Contains(strings.ToLower(v), strings.ToLower(f.Value))
	case "ANY_OF":
		for _, x := range strings.Split(f.Value, ",") {
			if ok && strings.EqualFold(v, strings.TrimSpace(x)) {
				return true
			}
		}
		return false
	case "NONE_OF":
		for _, x := range strings.Split(f.Value, ",") {
			if ok && strings.EqualFold(v, strings.TrimSpace(x)) {
				return false
			}
		}
		return true
	}
	return false
}

type getProductsOutput struct {
	FormatVersion string
	NextToken     string `json:",omitempty"`
	PriceList     []string
}

// getProducts serves GetProducts for ServiceCode AmazonEC2: one product per catalog type,
// Linux, shared tenancy (dedicated for bare metal), on-demand terms only, in the price list's
// JSON document format.
func (e *Emulator) getProducts(_ context.Context, body []byte) (any, error) {
	var in struct {
		ServiceCode   string
		Filters       []pricingFilter
		FormatVersion string
		NextToken     string
		MaxResults    *int
	}
	if err := decodeJSON(body, &in); err != nil {
		return nil, err
	}
	if in.ServiceCode == "" {
		return nil, newError(0, "InvalidParameterException", "Input validation error: ServiceCode is required")
	}
	if in.ServiceCode != "AmazonEC2" {
		return nil, newError(0, "NotFoundException", "The requested service code "+in.ServiceCode+" is not served by the emulator")
	}
	if in.FormatVersion != "" && in.FormatVersion != "aws_v1" {
		return nil, newError(0, "InvalidParameterException", "Input validation error: FormatVersion must be aws_v1")
	}
	for _, f := range in.Filters {
		switch f.Type {
		case "TERM_MATCH", "EQUALS", "CONTAINS", "ANY_OF", "NONE_OF":
		default:
			return nil, newError(0, "InvalidParameterException", "Input validation error: filter type "+f.Type+" is not valid")
		}
		if f.Field == "" {
			return nil, newError(0, "InvalidParameterException", "Input validation error: filter field is required")
		}
	}
	size := 100
	if in.MaxResults != nil {
		if *in.MaxResults < 1 || *in.MaxResults > 100 {
			return nil, newError(0, "InvalidParameterException", "Input validation error: MaxResults must be between 1 and 100")
		}
		size = *in.MaxResults
	}
	filterKey, _ := json.Marshal(in.Filters)
	fp := fingerprint(url.Values{"s": {in.ServiceCode}, "f": {string(filterKey)}})
	// The instance types never change after Start: no lock needed.
	var selected []product
	for _, t := range e.world.types {
		p := e.productFor(t)
		ok := true
		for _, f := range in.Filters {
			ok = ok && f.match(p)
		}
		if ok {
			selected = append(selected, p)
		}
	}
	start := 0
	if in.NextToken != "" {
		off, ok := decodeToken(in.NextToken, fp)
		if !ok || off > len(selected) {
			return nil, newError(0, "InvalidNextTokenException", "The pagination token is invalid. Try again without a pagination token.")
		}
		start = off
	}
	end := min(len(selected), start+size)
	out := getProductsOutput{FormatVersion: "aws_v1", PriceList: []string{}}
	if end < len(selected) {
		out.NextToken = encodeToken(end, fp)
	}
	for _, p := range selected[start:end] {
		doc, err := p.document()
		if err != nil {
			return nil, fmt.Errorf("price list document for %s: %w", p.typeName, err)
		}
		out.PriceList = append(out.PriceList, doc)
	}
	return out, nil
}

const (
	onDemandTermCode = "JRTCKXETXF"
	hourlyRateCode   = "6YS6EN2CT7"
	priceListDate    = "2026-07-01T00:00:00Z"
)

type priceDoc struct {
	Product struct {
		ProductFamily string            `json:"productFamily"`
		Attributes    map[string]string `json:"attributes"`
		SKU           string            `json:"sku"`
	} `json:"product"`
	ServiceCode     string     `json:"serviceCode"`
	Terms           priceTerms `json:"terms"`
	Version         string     `json:"version"`
	PublicationDate string     `json:"publicationDate"`
}

type priceTerms struct {
	OnDemand map[string]priceTerm `json:"OnDemand"`
}

type priceTerm struct {
	PriceDimensions map[string]priceDimension `json:"priceDimensions"`
	SKU             string                    `json:"sku"`
	EffectiveDate   string                    `json:"effectiveDate"`
	OfferTermCode   string                    `json:"offerTermCode"`
	TermAttributes  map[string]string         `json:"termAttributes"`
}

type priceDimension struct {
	Unit         string            `json:"unit"`
	EndRange     string            `json:"endRange"`
	Description  string            `json:"description"`
	AppliesTo    []string          `json:"appliesTo"`
	RateCode     string            `json:"rateCode"`
	BeginRange   string            `json:"beginRange"`
	PricePerUnit map[string]string `json:"pricePerUnit"`
}

// document renders the product as the Pricing API's JSON document (a string in PriceList).
func (p product) document() (string, error) {
	var d priceDoc
	d.Product.ProductFamily, d.Product.Attributes, d.Product.SKU = p.family, p.attributes, p.sku
	d.ServiceCode, d.Version, d.PublicationDate = "AmazonEC2", "20260701000000", priceListDate
	term := p.sku + "." + onDemandTermCode
	rate := term + "." + hourlyRateCode
	d.Terms.OnDemand = map[string]priceTerm{term: {
		SKU: p.sku, EffectiveDate: priceListDate, OfferTermCode: onDemandTermCode, TermAttributes: map[string]string{},
		PriceDimensions: map[string]priceDimension{rate: {
			Unit: "Hrs", EndRange: "Inf", BeginRange: "0", RateCode: rate, AppliesTo: []string{},
			Description:  fmt.Sprintf("$%s per On Demand Linux %s Instance Hour", strconv.FormatFloat(p.price, 'f', -1, 64), p.typeName),
			PricePerUnit: map[string]string{"USD": strconv.FormatFloat(math.Round(p.price*1e10)/1e10, 'f', 10, 64)},
		}},
	}}
	b, err := json.Marshal(d)
	return string(b), err
}
