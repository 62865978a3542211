#!/bin/sh
# Installs the tk extension for VS Code (syntax highlighting of .tk files): copies vscode/ and
# the grammar, as syntaxes/tk.tmLanguage.json (the path package.json names), into DEST, by
# default ~/.vscode/extensions/tk.tk-language-VERSION (VSCodium: ~/.vscode-oss/extensions/...).
# Usage: install-vscode.sh [DEST]; then reload VS Code.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$here/vscode/package.json")
dest=${1:-$HOME/.vscode/extensions/tk.tk-language-$version}
mkdir -p "$dest/syntaxes"
cp "$here/vscode/package.json" "$here/vscode/language-configuration.json" "$dest/"
cp "$here/tk.tmLanguage.json" "$dest/syntaxes/"
echo "installed the tk extension in $dest (reload VS Code: Developer: Reload Window)"
