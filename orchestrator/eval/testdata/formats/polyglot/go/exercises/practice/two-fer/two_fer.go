package twofer

// ShareWith says who gets the other one.
func ShareWith(name string) string {
	panic("Please implement the ShareWith function")
}
