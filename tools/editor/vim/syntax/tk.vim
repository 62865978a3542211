" Vim syntax file for tk (tile kernels; the language of grammar/Tk.g4).
" The keyword, type and builtin lists match tools/editor/tk.tmLanguage.json: ctest's
" editor.grammar (tools/editor/check_grammar.py) checks both against the language.
if exists("b:current_syntax")
  finish
endif

" Keywords (every word literal of grammar/Tk.g4's lexer).
syn keyword tkInclude     import
syn keyword tkDefine      kernel fn nextgroup=tkFuncName skipwhite
syn keyword tkStatement   let var
syn keyword tkModifier    const nospec
syn keyword tkConditional if else
syn keyword tkRepeat      for in while
syn keyword tkKeyword     return as
syn keyword tkBoolean     true false
syn keyword tkConstant    inf nan None none

" Types (support/lib/Types.cpp's scalar names, bool, ptr, dtype).
syn keyword tkType i1 i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 f8e4m3 f8e5m2 bool ptr dtype

" Builtins (frontend/include/tk/Frontend/Builtins.h), and the for loop's range and static_range.
syn keyword tkBuiltin program_id num_programs arange zeros full load store tensor_desc dot
syn keyword tkBuiltin sum max min argmax argmin reduce cumsum cumprod scan
syn keyword tkBuiltin reshape trans permute broadcast_to expand_dims
syn keyword tkBuiltin exp exp2 log log2 sqrt rsqrt sin cos tanh sigmoid erf abs floor ceil
syn keyword tkBuiltin fma maximum minimum clamp where cdiv
syn keyword tkBuiltin atomic_add atomic_max atomic_min atomic_xchg atomic_cas
syn keyword tkBuiltin multiple_of max_contiguous rand randn print assert static_assert bitcast cast gdc_wait gdc_launch_dependents prefetch_l2
syn keyword tkBuiltin range static_range

syn match tkFuncName  "\h\w*" contained
syn match tkDecorator "@\s*\h\w*"

" Numbers, as the lexer reads them (floats after integers: the later match wins).
syn match tkNumber "\<\d[0-9_]*\>"
syn match tkNumber "\<0[xX][0-9a-fA-F_]\+\>"
syn match tkNumber "\<0[bB][01_]\+\>"
syn match tkFloat  "\<\d[0-9_]*\.\%(\d[0-9_]*\)\=\%([eE][+-]\=\d\+\)\="
syn match tkFloat  "\<\d[0-9_]*[eE][+-]\=\d\+\>"
syn match tkFloat  "\%(\w\|\.\)\@1<!\.\d[0-9_]*\%([eE][+-]\=\d\+\)\="

" Strings (one line; escapes \n \t \\ \" \0) and comments.
syn match  tkEscapeError "\\." contained
syn match  tkEscape      +\\[nt\\"0]+ contained
syn region tkString start=+"+ skip=+\\\\\|\\"+ end=+"+ end=+$+ contains=tkEscape,tkEscapeError
syn keyword tkTodo TODO FIXME XXX contained
syn match  tkLineComment  "//.*$" contains=tkTodo,@Spell
syn region tkBlockComment start="/\*" end="\*/" contains=tkTodo,@Spell
syn sync ccomment tkBlockComment

hi def link tkInclude     Include
hi def link tkDefine      Keyword
hi def link tkStatement   Statement
hi def link tkModifier    StorageClass
hi def link tkConditional Conditional
hi def link tkRepeat      Repeat
hi def link tkKeyword     Keyword
hi def link tkBoolean     Boolean
hi def link tkConstant    Constant
hi def link tkType        Type
hi def link tkBuiltin     Function
hi def link tkFuncName    Function
hi def link tkDecorator   PreProc
hi def link tkNumber      Number
hi def link tkFloat       Float
hi def link tkString      String
hi def link tkEscape      SpecialChar
hi def link tkEscapeError Error
hi def link tkTodo        Todo
hi def link tkLineComment  Comment
hi def link tkBlockComment Comment

let b:current_syntax = "tk"
