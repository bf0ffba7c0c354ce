// placeholder for dependency resolution
