package io.backpressure.temporal;

import io.backpressure.core.Cost;

/** The plain value behind {@link GatedRequest#of}. */
record SimpleGatedRequest(String tenant, String priority, Cost cost, Long maxTokens)
    implements GatedRequest {}
