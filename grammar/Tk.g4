// The grammar of the .tk language (../LANGUAGE.md). Expression precedence follows Rust:
// postfix indexing, prefix operators, `as`, then * / %, + -, << >>, &, ^, |, comparisons, &&, ||.
grammar Tk;

program : item* EOF ;

item
    : importItem
    | constItem
    | fnItem
    | kernelItem
    ;

importItem : IMPORT STRING ';' ;
constItem  : CONST IDENT (':' typeExpr)? '=' expr ';' ;

fnItem   : FN IDENT '(' (fnParam (',' fnParam)* ','?)? ')' ('->' typeExpr)? block ;
fnParam  : CONST? IDENT (':' typeExpr)? ;

kernelItem  : decorator* KERNEL IDENT '(' (kernelParam (',' kernelParam)* ','?)? ')' block ;
kernelParam : (CONST | NOSPEC)* IDENT ':' typeExpr ('=' expr)? ;

decorator : '@' IDENT '(' (decoratorArg (',' decoratorArg)* ','?)? ')' ;
decoratorArg : IDENT '=' decoratorValue ;
decoratorValue
    : '{' (decoratorEntry (',' decoratorEntry)* ','?)? '}'          # decoratorDict
    | '[' (decoratorValue (',' decoratorValue)* ','?)? ']'          # decoratorList
    | expr                                                          # decoratorExpr
    ;
decoratorEntry : IDENT ':' decoratorValue ;

// `f32`, `ptr<f16>`, `f32[128, 64]`, `ptr<f16>[64]`
typeExpr : IDENT ('<' typeExpr '>')? ('[' expr (',' expr)* ']')? ;
scalarType : IDENT ('<' scalarType '>')? ;

block : '{' stmt* '}' ;

stmt
    : LET IDENT (':' typeExpr)? '=' expr ';'            # letStmt
    | VAR IDENT (':' typeExpr)? '=' expr ';'            # varStmt
    | IDENT assignOp expr ';'                           # assignStmt
    | ifStmt                                            # ifStatement
    | FOR IDENT IN expr block                           # forStmt
    | WHILE expr block                                  # whileStmt
    | RETURN expr? ';'                                  # returnStmt
    | block                                             # blockStmt
    | expr ';'                                          # exprStmt
    ;

ifStmt : IF expr block (ELSE (ifStmt | block))? ;

assignOp : '=' | '+=' | '-=' | '*=' | '/=' | '%=' | '&=' | '|=' | '^=' | '<<=' | '>>=' ;

expr
    : primary                                           # primaryExpr
    | expr '[' indexItem (',' indexItem)* ','? ']'      # indexExpr
    | op=('-' | '!' | '~') expr                         # unaryExpr
    | expr AS scalarType                                # castExpr
    | expr op=('*' | '/' | '%') expr                    # binaryExpr
    | expr op=('+' | '-') expr                          # binaryExpr
    | expr op=('<<' | '>>') expr                        # binaryExpr
    | expr op='&' expr                                  # binaryExpr
    | expr op='^' expr                                  # binaryExpr
    | expr op='|' expr                                  # binaryExpr
    | expr op=('==' | '!=' | '<' | '<=' | '>' | '>=') expr  # binaryExpr
    | expr op='&&' expr                                 # binaryExpr
    | expr op='||' expr                                 # binaryExpr
    ;

indexItem
    : ':'                                               # sliceIndex
    | (NONE_UPPER | NONE_LOWER)                         # newAxisIndex
    | expr                                              # exprIndex
    ;

primary
    : INT                                               # intLit
    | FLOAT                                             # floatLit
    | (TRUE | FALSE)                                    # boolLit
    | (INF | NAN)                                       # specialFloatLit
    | (NONE_UPPER | NONE_LOWER)                         # noneLit
    | STRING                                            # stringLit
    | IDENT '(' (callArg (',' callArg)* ','?)? ')'      # callExpr
    | IDENT                                             # nameExpr
    | '(' expr ')'                                      # parenExpr
    | '[' (expr (',' expr)* ','?)? ']'                  # listExpr
    ;

callArg : (IDENT '=')? expr ;

IMPORT : 'import' ;
CONST  : 'const' ;
NOSPEC : 'nospec' ;
FN     : 'fn' ;
KERNEL : 'kernel' ;
LET    : 'let' ;
VAR    : 'var' ;
IF     : 'if' ;
ELSE   : 'else' ;
FOR    : 'for' ;
IN     : 'in' ;
WHILE  : 'while' ;
RETURN : 'return' ;
AS     : 'as' ;
TRUE   : 'true' ;
FALSE  : 'false' ;
INF    : 'inf' ;
NAN    : 'nan' ;
NONE_UPPER : 'None' ;
NONE_LOWER : 'none' ;

FLOAT
    : DIGITS '.' DIGITS? EXPONENT?
    | DIGITS EXPONENT
    | '.' DIGITS EXPONENT?
    ;
INT
    : '0' [xX] [0-9a-fA-F_]+
    | '0' [bB] [01_]+
    | DIGITS
    ;
fragment DIGITS   : [0-9] [0-9_]* ;
fragment EXPONENT : [eE] [+-]? [0-9]+ ;

IDENT  : [a-zA-Z_] [a-zA-Z0-9_]* ;
STRING : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"' ;
UNTERMINATED_STRING : '"' (~["\\\r\n] | '\\' ~[\r\n])* ;

LINE_COMMENT  : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
// Cannot contain `*/`, so it only wins when the comment never closes.
UNTERMINATED_COMMENT : '/*' ( ~'*' | '*'+ ~[*/] )* '*'* EOF ;
WS : [ \t\r\n\f]+ -> skip ;

// Anything else becomes one token, so the lexer never fails and the parser reports it.
UNEXPECTED_CHAR : . ;
