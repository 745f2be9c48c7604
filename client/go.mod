module github.com/sluice-api/sluice/client

go 1.24
