#!/bin/sh
# The race tests' gate: notes each run in $RACE_DIR/started, records an overlap when another gate
# is running at the same moment (two drainers at once), then waits (up to 60 s) for $RACE_DIR/go.
if ! mkdir "$RACE_DIR/busy" 2>/dev/null; then
  echo "$LAND_TRAIN" >> "$RACE_DIR/overlaps"
fi
echo "$LAND_TRAIN $LAND_MEMBERS" >> "$RACE_DIR/started"
i=0
while [ ! -e "$RACE_DIR/go" ] && [ "$i" -lt 1200 ]; do
  sleep 0.05
  i=$((i + 1))
done
rmdir "$RACE_DIR/busy" 2>/dev/null
exit 0
