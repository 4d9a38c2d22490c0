package twofer

import "fmt"

// ShareWith says who gets the other one.
func ShareWith(name string) string {
	if name == "" {
		name = "you"
	}
	return fmt.Sprintf("One for %s, one for me.", name)
}
