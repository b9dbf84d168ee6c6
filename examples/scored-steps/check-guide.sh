# Prints how complete the guide is: the share of its sections present, and those missing.
guide=examples/scored-steps/out/guide.md
if [ ! -f "$guide" ]; then
  mkdir -p "$(dirname "$guide")"
  cp examples/scored-steps/draft.md "$guide"
fi
found=0
missing=""
for section in Install Usage Errors; do
  if grep -q "^## $section" "$guide"; then
    found=$((found + 1))
  else
    missing="$missing${missing:+, }\"$section\""
  fi
done
printf '{ "completion": %s, "missing": [%s] }\n' "$(awk "BEGIN { printf \"%.2f\", $found / 3 }")" "$missing"
