package uitest

// instanceType is one row of the fake price list.
type instanceType struct {
	name     string
	cpu      int64 // cores
	memGi    int64
	onDemand float64 // $/h
}

// spotDiscount makes the (synthetic) spot price from the on-demand price.
const spotDiscount = 0.35

func catalog() []instanceType {
	return []instanceType{
		{"c6i.large", 2, 4, 0.085},
		{"m6i.large", 2, 8, 0.096},
		{"m7g.large", 2, 8, 0.0816},
		{"r6i.large", 2, 16, 0.126},
		{"c6i.xlarge", 4, 8, 0.17},
		{"m6i.xlarge", 4, 16, 0.192},
		{"m6i.2xlarge", 8, 32, 0.384},
		{"g5.xlarge", 4, 16, 1.006},
	}
}

func findType(name string) (instanceType, bool) {
	for _, it := range catalog() {
		if it.name == name {
			return it, true
		}
	}
	return instanceType{}, false
}

// zoneNames are the fake region's zones.
func zoneNames() []string { return []string{"us-east-1a", "us-east-1b", "us-east-1c"} }
