#!/bin/sh
# Makes the demo project of `make review`: a git repository on main with
# one commit, for the simulated agent to change. Usage: init-project.sh DIR
set -eu
dir=$1
mkdir -p "$dir"
cd "$dir"
git init -q -b main .
git config user.name "daokit demo"
git config user.email "demo@daokit.invalid"
printf '# demo project\n\nThe simulated agent of `make review` changes this project.\n' > README.md
git add README.md
git commit -q -m "demo project"
