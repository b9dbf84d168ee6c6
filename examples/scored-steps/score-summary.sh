# Scores a summary (in $CONCLAVE_OUTPUT) by its length: 100 up to 45 words, 2 less for each word over.
words=$(printf '%s' "$CONCLAVE_OUTPUT" | wc -w)
score=$((words <= 45 ? 100 : 100 - (words - 45) * 2))
echo "score: $((score < 0 ? 0 : score))"
