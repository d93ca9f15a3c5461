package io.backpressure.temporal;

import io.backpressure.core.Cost;
import org.jspecify.annotations.Nullable;

/** The plain value behind {@link GatedRequest#of}. */
record SimpleGatedRequest(String tenant, String priority, Cost cost, @Nullable Long maxTokens)
    implements GatedRequest {}
