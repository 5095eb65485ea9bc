public enum DevicePolicyPlaceholder {}
