// Command eval is a toy evaluation for modellock's tests: a table whose figure is the model's
// size in thousandths.
package main

import (
	"fmt"
	"log"
	"os"
)

func main() {
	b, err := os.ReadFile("model.bin")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("## Toy")
	fmt.Println()
	fmt.Println("| set | texts | accuracy | mean time |")
	fmt.Println("| --- | ---: | ---: | ---: |")
	fmt.Printf("| toy | %d | %.3f | 0.5 |\n", len(b), float64(len(b))/1000)
}
