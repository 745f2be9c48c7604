module github.com/sluice-api/sluice/scripts/langid-compare

go 1.26.0

require (
	github.com/abadojack/whatlanggo v1.0.1
	github.com/pemistahl/lingua-go v1.4.0
	github.com/sluice-api/sluice v0.0.0
)

require (
	github.com/shopspring/decimal v1.3.1 // indirect
	golang.org/x/exp v0.0.0-20221106115401-f9659909a136 // indirect
	golang.org/x/text v0.31.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)

replace github.com/sluice-api/sluice => ../..
