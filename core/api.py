from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.decorators import api_view
from rest_framework.response import Response

from core.roles import user_roles


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    roles = serializers.ListField(child=serializers.CharField())
    language = serializers.CharField()


@extend_schema(responses=MeSerializer, summary="The logged-in user and their roles")
@api_view(["GET"])
def me(request):
    data = {
        "username": request.user.get_username(),
        "roles": sorted(user_roles(request.user)),
        "language": request.LANGUAGE_CODE,
    }
    return Response(MeSerializer(data).data)
