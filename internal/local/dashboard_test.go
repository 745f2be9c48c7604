package local

import "testing"

func TestDashboardBase(t *testing.T) {
	for _, tc := range []struct {
		addr, want string
	}{
		{"127.0.0.1:8080", "http://sluice-8080.localhost:8080"},
		{"127.0.0.2:9090", "http://sluice-9090.localhost:9090"},
		{"[::1]:8080", "http://sluice-8080.localhost:8080"},
		{"0.0.0.0:8080", "http://0.0.0.0:8080"},
		{"192.168.1.5:8080", "http://192.168.1.5:8080"},
		{"[2001:db8::1]:8080", "http://[2001:db8::1]:8080"},
		{"localhost:8080", "http://localhost:8080"}, // not an address: a listener never reports one
	} {
		t.Run(tc.addr, func(t *testing.T) {
			if got := DashboardBase(tc.addr); got != tc.want {
				t.Fatalf("DashboardBase(%q) = %q, want %q", tc.addr, got, tc.want)
			}
		})
	}
}
