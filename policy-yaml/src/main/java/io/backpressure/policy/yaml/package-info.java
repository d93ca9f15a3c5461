/**
 * Policy files: {@link io.backpressure.policy.yaml.PolicyYaml} reads a policy from YAML and writes
 * one back, with errors that name the field at fault. The format is documented in {@code
 * docs/policy.yaml}. A module of its own so that {@code backpressure-core} needs no parser: this
 * one brings Jackson.
 */
package io.backpressure.policy.yaml;
