/** Workloads: the tenants, classes, arrivals, token sizes and faults of a run, read from YAML. */
package io.backpressure.eval.workload;
