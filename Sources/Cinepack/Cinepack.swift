// The umbrella module: `import Cinepack` gives editing tools every layer at once.
@_exported import CinepackCompression
@_exported import CinepackContainer
@_exported import CinepackDocument
@_exported import CinepackEDL
@_exported import CinepackEditor
@_exported import CinepackFormat
@_exported import CinepackRender
@_exported import CinepackTime
