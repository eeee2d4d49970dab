package main

// shown returns the metrics a comparison shows, in the table's order.
func (cmp *comparison) shown() []metric { return metrics }
