module lathe/ui/markdown/internal/lexers

go 1.26.0

require github.com/alecthomas/chroma/v2 v2.14.0

require github.com/dlclark/regexp2 v1.11.4
