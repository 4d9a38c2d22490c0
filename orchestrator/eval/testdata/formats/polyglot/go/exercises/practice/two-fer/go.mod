module twofer

go 1.18
