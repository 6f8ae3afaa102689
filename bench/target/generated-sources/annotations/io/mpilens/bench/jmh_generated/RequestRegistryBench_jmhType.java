package io.mpilens.bench.jmh_generated;
public class RequestRegistryBench_jmhType extends RequestRegistryBench_jmhType_B3 {
}

