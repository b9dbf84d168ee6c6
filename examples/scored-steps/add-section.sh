# The fixer: adds the first missing section the check found ($1: the number of that check).
guide=examples/scored-steps/out/guide.md
for section in Install Usage Errors; do
  if ! grep -q "^## $section" "$guide"; then
    printf '\n## %s\n\nWritten by the fixer after check %s.\n' "$section" "$1" >> "$guide"
    echo "added $section"
    exit 0
  fi
done
