package account

import "testing"

func TestCost(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chars int64
		micro int64
		band  string
	}{
		{"Zero", 0, 0, "tier1"},
		{"OneThousand", 1_000, 20_000, "tier1"},
		{"FirstBandFull", 1_000_000, 20_000_000, "tier2"},
		{"IntoSecond", 1_000_001, 20_000_012, "tier2"},
		{"TenMillion", 10_000_000, 20_000_000 + 9_000_000*12, "tier3"},
		{"HundredMillion", 100_000_000, 20_000_000 + 108_000_000 + 90_000_000*8, "tier4"},
		{"Beyond", 100_000_010, 20_000_000 + 108_000_000 + 720_000_000 + 50, "tier4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Cost(tc.chars); got != tc.micro {
				t.Fatalf("Cost(%d) = %d, want %d", tc.chars, got, tc.micro)
			}
			if got := PriceBand(tc.chars).Name; got != tc.band {
				t.Fatalf("PriceBand(%d) = %s, want %s", tc.chars, got, tc.band)
			}
		})
	}
	if got := FormatUSD(20_000_012); got != "20.000012" {
		t.Fatalf("FormatUSD = %s", got)
	}
	if got := FormatUSD(5); got != "0.000005" {
		t.Fatalf("FormatUSD = %s", got)
	}
}
