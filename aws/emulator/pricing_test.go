package emulator

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
)

// karpenterPriceFilters are the filters Karpenter lists on-demand prices with.
func karpenterPriceFilters(family string) []pricingtypes.Filter {
	f := func(field, value string) pricingtypes.Filter {
		return pricingtypes.Filter{Field: aws.String(field), Type: pricingtypes.FilterTypeTermMatch, Value: aws.String(value)}
	}
	// Karpenter asks for bare metal under dedicated tenancy, as the price list lists it.
	tenancy := "Shared"
	if family == "Compute Instance (bare metal)" {
		tenancy = "Dedicated"
	}
	return []pricingtypes.Filter{
		f("regionCode", "us-east-1"), f("serviceCode", "AmazonEC2"), f("preInstalledSw", "NA"), f("operatingSystem", "Linux"),
		f("capacitystatus", "Used"), f("marketoption", "OnDemand"), f("tenancy", tenancy), f("productFamily", family),
	}
}

// priceDocument is the part of a price list document Karpenter reads.
type priceDocument struct {
	Product struct {
		Attributes struct {
			InstanceType string `json:"instanceType"`
		} `json:"attributes"`
	} `json:"product"`
	Terms struct {
		OnDemand map[string]struct {
			PriceDimensions map[string]struct {
				PricePerUnit map[string]string `json:"pricePerUnit"`
			} `json:"priceDimensions"`
		} `json:"OnDemand"`
	} `json:"terms"`
}

func TestGetProductsPagesEveryPrice(t *testing.T) {
	_, _, c := startFake(t, Config{})
	cat := loadCatalog(t)
	want := map[string]float64{}
	for _, e := range cat.Entries {
		want[e.Name] = e.OnDemandPrice
	}
	got := map[string]float64{}
	for _, family := range []string{"Compute Instance", "Compute Instance (bare metal)"} {
		p := pricing.NewGetProductsPaginator(c.pricing, &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), Filters: karpenterPriceFilters(family)})
		for p.HasMorePages() {
			out, err := p.NextPage(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			if len(out.PriceList) > 100 {
				t.Fatalf("page of %d", len(out.PriceList))
			}
			for _, doc := range out.PriceList {
				var d priceDocument
				if err := json.Unmarshal([]byte(doc), &d); err != nil {
					t.Fatal(err)
				}
				for _, term := range d.Terms.OnDemand {
					for _, dim := range term.PriceDimensions {
						v, err := strconv.ParseFloat(dim.PricePerUnit["USD"], 64)
						if err != nil {
							t.Fatal(err)
						}
						got[d.Product.Attributes.InstanceType] = v
					}
				}
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d prices, want %d", len(got), len(want))
	}
	for name, p := range want {
		if got[name] != p {
			t.Errorf("%s: %v, want %v", name, got[name], p)
		}
	}
}

func TestGetProductsFiltersAndErrors(t *testing.T) {
	_, _, c := startFake(t, Config{})
	one := func(filters ...pricingtypes.Filter) (*pricing.GetProductsOutput, error) {
		return c.pricing.GetProducts(ctx(t), &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), Filters: filters})
	}
	it := pricingtypes.Filter{Field: aws.String("instanceType"), Type: pricingtypes.FilterTypeTermMatch, Value: aws.String("m5.large")}
	out, err := one(it)
	if err != nil || len(out.PriceList) != 1 || !strings.Contains(out.PriceList[0], `"USD":"0.0960000000"`) || out.NextToken != nil {
		t.Errorf("m5.large: %v %v", err, out)
	}
	out, err = one(pricingtypes.Filter{Field: aws.String("operatingSystem"), Type: pricingtypes.FilterTypeTermMatch, Value: aws.String("Windows")})
	if err != nil || len(out.PriceList) != 0 {
		t.Errorf("Windows: %v %d", err, len(out.PriceList))
	}
	out, err = one(pricingtypes.Filter{Field: aws.String("location"), Type: pricingtypes.FilterTypeTermMatch, Value: aws.String("US East (N. Virginia)")}, it)
	if err != nil || len(out.PriceList) != 1 {
		t.Errorf("by location: %v %d", err, len(out.PriceList))
	}
	if _, err := c.pricing.GetProducts(ctx(t), &pricing.GetProductsInput{ServiceCode: aws.String("AmazonS3")}); apiCode(err) != "NotFoundException" {
		t.Errorf("other service: %v", err)
	}
	if _, err := c.pricing.GetProducts(ctx(t), &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), NextToken: aws.String("forged")}); apiCode(err) != "InvalidNextTokenException" {
		t.Errorf("forged token: %v", err)
	}
	if _, err := c.pricing.GetProducts(ctx(t), &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), MaxResults: aws.Int32(101)}); apiCode(err) != "InvalidParameterException" {
		t.Errorf("101 results: %v", err)
	}
}
