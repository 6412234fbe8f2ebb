package app

// maxAssetBytes is the asset file limit of the settings; 0 (the config
// module's default) for the declarations alone (Modules), which have none.
func (a *App) maxAssetBytes() int64 {
	if a.Config == nil {
		return 0
	}
	return a.Config.MaxAssetBytes
}
