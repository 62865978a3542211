" *.tk is tk (tile kernels), not Tcl/Tk: `set filetype` overrides the `setf tcl` that
" filetype.vim applied before the ftdetect scripts ran.
autocmd BufRead,BufNewFile *.tk set filetype=tk
