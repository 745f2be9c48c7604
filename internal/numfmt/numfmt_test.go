package numfmt

import (
	"math"
	"testing"
)

func TestThousands(t *testing.T) {
	for _, tc := range []struct {
		in   int64
		want string
	}{
		{0, "0"},
		{7, "7"},
		{999, "999"},
		{1000, "1,000"},
		{12_345, "12,345"},
		{123_456, "123,456"},
		{1_234_567, "1,234,567"},
		{-1, "-1"},
		{-999, "-999"},
		{-1234, "-1,234"},
		{-123_456, "-123,456"},
		{math.MaxInt64, "9,223,372,036,854,775,807"},
		{math.MinInt64, "-9,223,372,036,854,775,808"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := Thousands(tc.in); got != tc.want {
				t.Fatalf("Thousands(%d) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
