package account

import "fmt"

// Band is one marginal price band of the monthly character total.
type Band struct {
	Name string
	// UpTo is the month's total at which the band ends (exclusive of later bands); 0 means no end.
	UpTo int64
	// MicroUSDPerChar is the price of one character in the band in micro-dollars
	// (USD per 1,000 characters x 1,000).
	MicroUSDPerChar int64
}

// Bands returns the one rate table: first 1M characters at 0.020 USD per 1,000, next 9M at 0.012,
// next 90M at 0.008, beyond at 0.005. Money is integer micro-dollars, so every cost is exact.
func Bands() []Band {
	return []Band{
		{Name: "tier1", UpTo: 1_000_000, MicroUSDPerChar: 20},
		{Name: "tier2", UpTo: 10_000_000, MicroUSDPerChar: 12},
		{Name: "tier3", UpTo: 100_000_000, MicroUSDPerChar: 8},
		{Name: "tier4", UpTo: 0, MicroUSDPerChar: 5},
	}
}

// Cost returns the price in micro-dollars of a month's total of chars characters, marginally: each
// character pays the rate of the band it falls in.
func Cost(chars int64) int64 {
	var cost, from int64
	for _, b := range Bands() {
		if chars <= from {
			break
		}
		to := chars
		if b.UpTo != 0 && b.UpTo < to {
			to = b.UpTo
		}
		cost += (to - from) * b.MicroUSDPerChar
		from = to
	}
	return cost
}

// PriceBand returns the band the next character of a month with chars characters falls in.
func PriceBand(chars int64) Band {
	bands := Bands()
	for _, b := range bands {
		if b.UpTo == 0 || chars < b.UpTo {
			return b
		}
	}
	return bands[len(bands)-1]
}

// FormatUSD renders micro-dollars as USD with six decimals ("12.345678").
func FormatUSD(micro int64) string {
	sign := ""
	if micro < 0 {
		sign, micro = "-", -micro
	}
	return fmt.Sprintf("%s%d.%06d", sign, micro/1_000_000, micro%1_000_000)
}
