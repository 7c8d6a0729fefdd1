#!/usr/bin/env bash
# Submits one eval run to AWS Batch: an array job of 4 shards, then a merge job that starts once every child of the
# array job has succeeded (see docs/scale-out.md). Register the two job definitions first:
#   aws batch register-job-definition --cli-input-json file://shard-job-definition.json
#   aws batch register-job-definition --cli-input-json file://merge-job-definition.json
# Each child gets AWS_BATCH_JOB_ARRAY_INDEX (0…3), which agentevalops reads with AGENTEVALOPS_SHARD_COUNT as shard
# index+1 of 4; the children share the array job's id (AWS_BATCH_JOB_ID before its ':'), which is the run key of
# their run group and the folder of their bundles.
set -euo pipefail
QUEUE="${QUEUE:-agentevalops}"
SHARDS=4

ARRAY_JOB_ID=$(aws batch submit-job --job-name agentevalops-shards --job-queue "$QUEUE" \
  --job-definition agentevalops-shard --array-properties size=$SHARDS --query jobId --output text)
echo "shards: $ARRAY_JOB_ID"

aws batch submit-job --job-name agentevalops-merge --job-queue "$QUEUE" --job-definition agentevalops-merge \
  --depends-on jobId="$ARRAY_JOB_ID" \
  --parameters shards="/mnt/runs/shards/$ARRAY_JOB_ID",runId="$ARRAY_JOB_ID" --query jobId --output text
